/*
 * backends/opencv/opencv_onnx.h - an ONNX model of one ConvTranspose node,
 * serialised (protocol buffers wire format) without the ONNX library, for
 * cv::dnn::readNetFromONNX.
 */
#ifndef IOHW_OPENCV_ONNX_H
#define IOHW_OPENCV_ONNX_H

#include <cstdint>
#include <string>
#include <vector>

/* The node and its tensors: x "X" [N][C_in][H][W] (a graph input), w "W"
 * [C_in][C_out/G][KH][KW] and bias "B" [C_out] (initializers; no "B" when
 * bias is empty), y "Y" [N][C_out][OH][OW].  Per axis in H, W order. */
struct iohw_opencv_node {
    std::vector<int64_t> x_shape, y_shape, w_shape;
    std::vector<int64_t> kernel, strides, dilations, output_padding;
    std::vector<int64_t> pads; /* begin per axis, then end per axis */
    int64_t group = 1;
    const float *w = nullptr;  /* product of w_shape floats, IOHW order */
    const float *bias = nullptr; /* C_out floats, or nullptr */
};

/* The serialised ModelProto (IR version 7, opset 11). */
std::string iohw__opencv_onnx_model(const iohw_opencv_node &n);

#endif
