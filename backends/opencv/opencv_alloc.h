/*
 * backends/opencv/opencv_alloc.h - OpenCV's default Mat allocator with
 * slack after every buffer, so that a kernel of OpenCV that writes past
 * its blob (docs/CONFORMANCE.md V2: the 1x1 path with a crop) damages no
 * other memory of the process.
 */
#ifndef IOHW_OPENCV_ALLOC_H
#define IOHW_OPENCV_ALLOC_H

#include <cstddef>

/* While it lives, every Mat OpenCV allocates gets `slack` bytes more than
 * it asked for (its size and steps unchanged); the previous default
 * allocator comes back when it ends.  Not reentrant (one per process at a
 * time, as the host calls run() of one context at a time). */
class iohw_opencv_slack_scope {
public:
    explicit iohw_opencv_slack_scope(size_t slack);
    ~iohw_opencv_slack_scope();
    iohw_opencv_slack_scope(const iohw_opencv_slack_scope &) = delete;
    iohw_opencv_slack_scope &operator=(const iohw_opencv_slack_scope &) =
        delete;

private:
    void *previous_;
};

#endif
