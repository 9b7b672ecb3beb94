"""pytest -p iohw.pytest_plugin: the --iohw-isolate option (each item of
iohw.pytest.cases run through `iohw run`, isolated)."""
import os


def pytest_addoption(parser):
    parser.addoption("--iohw-isolate", action="store_true", default=False,
                     help="run each iohw case item in an exec-protocol "
                          "program under `iohw run` (survives crashes)")


def pytest_configure(config):
    if config.getoption("--iohw-isolate"):
        os.environ["IOHW_PYTEST_ISOLATE"] = "1"
