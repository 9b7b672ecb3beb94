/*
 * backends/opencv/opencv_alloc.cpp - the Mat allocator of opencv_alloc.h:
 * OpenCV's own StdMatAllocator (modules/core/src/matrix.cpp, 4.x) with
 * `slack` bytes added to every buffer it allocates.
 */
#include "backends/opencv/opencv_alloc.h"

#include <atomic>

#include <opencv2/core.hpp>

namespace {

class slack_allocator final : public cv::MatAllocator {
public:
    std::atomic<size_t> slack{0};

    cv::UMatData *allocate(int dims, const int *sizes, int type, void *data0,
                           size_t *step, cv::AccessFlag,
                           cv::UMatUsageFlags) const override
    {
        size_t total = CV_ELEM_SIZE(type);
        for (int i = dims - 1; i >= 0; i--) {
            if (step != nullptr) {
                if (data0 != nullptr && step[i] != cv::Mat::AUTO_STEP) {
                    CV_Assert(total <= step[i]);
                    total = step[i];
                } else {
                    step[i] = total;
                }
            }
            total *= static_cast<size_t>(sizes[i]);
        }
        uchar *data = data0 != nullptr
                          ? static_cast<uchar *>(data0)
                          : static_cast<uchar *>(cv::fastMalloc(total + slack));
        cv::UMatData *u = new cv::UMatData(this);
        u->data = u->origdata = data;
        u->size = total;
        if (data0 != nullptr)
            u->flags |= cv::UMatData::USER_ALLOCATED;
        return u;
    }

    bool allocate(cv::UMatData *u, cv::AccessFlag,
                  cv::UMatUsageFlags) const override
    {
        return u != nullptr;
    }

    void deallocate(cv::UMatData *u) const override
    {
        if (u == nullptr)
            return;
        CV_Assert(u->urefcount == 0);
        CV_Assert(u->refcount == 0);
        if (!(u->flags & cv::UMatData::USER_ALLOCATED)) {
            cv::fastFree(u->origdata);
            u->origdata = nullptr;
        }
        delete u;
    }
};

/* Never destroyed: Mats it allocated may outlive any scope. */
slack_allocator *the_allocator()
{
    static slack_allocator *a = new slack_allocator;
    return a;
}

} /* namespace */

iohw_opencv_slack_scope::iohw_opencv_slack_scope(size_t slack)
    : previous_(cv::Mat::getDefaultAllocator())
{
    the_allocator()->slack = slack;
    cv::Mat::setDefaultAllocator(the_allocator());
}

iohw_opencv_slack_scope::~iohw_opencv_slack_scope()
{
    cv::Mat::setDefaultAllocator(static_cast<cv::MatAllocator *>(previous_));
}
