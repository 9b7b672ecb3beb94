/*
 * generators/suite_models.c - the models category (profile `models`): the
 * transposed-convolution layers of real networks, one case per layer, in
 * f32 with the exact fill (every sum exact, so a layout misreading shows
 * bit for bit and its diagnosis matches).
 *
 * A case's id is models.<network>.<layer> and its tags hold `models` and
 * model-<network>.  After the layers come their backward cases
 * (specification section 13), models.<network>.<layer>.bwd_d and .bwd_w,
 * where that direction's output (dx; dw and db) has at most 2^16
 * elements: a training step runs all three kernels of a layer.  Shapes are the networks' own; where a layer's input
 * was cut to keep the profile under 2 minutes and 1 GB, the layer's name
 * says the input size used (e.g. upconv3-in25x25).  Batch sizes are chosen
 * for the same reason.  Each descriptor follows PyTorch's arguments:
 * ConvTranspose(in, out, kernel, stride, padding, output_padding); the
 * bias is the layer's own.
 *
 * Sources:
 *   dcgan        Radford et al., arXiv:1511.06434; the generator of
 *                pytorch/examples dcgan/main.py (nz=100, ngf=64, nc=3,
 *                bias=False)
 *   unet         Ronneberger et al., arXiv:1505.04597, Fig. 1: up-conv 2x2
 *                halving the channels, on 28, 52, 100 and 196 squares
 *   hifigan      Kong et al., arXiv:2010.05646; jik876/hifi-gan
 *                config_v1.json (upsample_rates 8,8,2,2, kernels 16,16,4,4,
 *                initial channel 512) and models.py (padding (k-u)/2), on
 *                the 32 mel frames of a training segment
 *   melgan       Kumar et al., arXiv:1910.06711; descriptinc/melgan-neurips
 *                mel2wav/modules.py Generator (ratios 8,8,2,2, ngf 32,
 *                kernel 2r, stride r, padding r/2 + r%2)
 *   encodec      Defossez et al., arXiv:2210.13438; facebookresearch/encodec
 *                encodec/modules/seanet.py SEANetDecoder (ratios 8,5,4,2,
 *                kernel 2r, stride r) with conv.py's unpadding: non-causal
 *                (48 kHz model) trims k-s as (k-s) - (k-s)/2 at the start
 *                and (k-s)/2 at the end, so k=10 s=5 pads 3:2; causal
 *                (24 kHz model) trims all k-s at the end; 75 frames (1 s)
 *   unet3d       Cicek et al., arXiv:1606.06650, Fig. 1: up-conv 2x2x2
 *                keeping 512, 256 and 128 channels (inputs cut)
 *   vnet         Milletari et al., arXiv:1606.04797; mattmacy/vnet.pytorch
 *                vnet.py UpTransition: ConvTranspose3d(in, out/2, 2, 2) for
 *                (256,256), (256,128), (128,64), (64,32) on a 128x128x64
 *                volume
 *   yolov8-seg   ultralytics ultralytics/nn/modules/block.py Proto:
 *                ConvTranspose2d(c_, c_, 2, 2, 0, bias=True), c_ = 256 x
 *                width (n: 64, s: 128) on the 80x80 P3 map of a 640 image
 *   fcn8s        Long et al., arXiv:1411.4038; shelhamer/fcn.berkeleyvision.org
 *                voc-fcn8s/net.py: upscore2 and upscore_pool4 (21 classes,
 *                kernel 4, stride 2), upscore8 (kernel 16, stride 8),
 *                bias_term=False, on a 500x500 image (pad 100)
 *   benchdnn-*   oneDNN tests/benchdnn/inputs/deconv/: deconv_2d (alexnet,
 *                googlenet_v1, masknet_p1), deconv_dilated (alexnet
 *                dilated_deconv4, unet_3d dilated_deconv8) and shapes_ci
 *                (the channel-tail shapes); benchdnn's dilation counts
 *                from 0 (dh1 is d=2) and its output size sets pad_end (or
 *                output_padding when larger than the uncropped output)
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "oracle/problem.h"

typedef struct model_layer {
    const char *net;     /* tag model-<net>, id models.<net>.<layer> */
    const char *layer;
    const char *desc;    /* without dt and fill */
} model_layer;

static const model_layer LAYERS[] = {
    {"dcgan", "deconv1", "n=4 ci=100 co=512 in=1x1 k=4x4"},
    {"dcgan", "deconv2", "n=4 ci=512 co=256 in=4x4 k=4x4 s=2x2 pad=1x1"},
    {"dcgan", "deconv3", "n=4 ci=256 co=128 in=8x8 k=4x4 s=2x2 pad=1x1"},
    {"dcgan", "deconv4", "n=4 ci=128 co=64 in=16x16 k=4x4 s=2x2 pad=1x1"},
    {"dcgan", "deconv5", "n=4 ci=64 co=3 in=32x32 k=4x4 s=2x2 pad=1x1"},
    {"unet", "upconv1", "ci=1024 co=512 in=28x28 k=2x2 s=2x2 bias=1"},
    {"unet", "upconv2-in26x26", "ci=512 co=256 in=26x26 k=2x2 s=2x2 bias=1"},
    {"unet", "upconv3-in25x25", "ci=256 co=128 in=25x25 k=2x2 s=2x2 bias=1"},
    {"unet", "upconv4-in49x49", "ci=128 co=64 in=49x49 k=2x2 s=2x2 bias=1"},
    {"hifigan", "ups0", "ci=512 co=256 in=32 k=16 s=8 pad=4 bias=1"},
    {"hifigan", "ups1", "ci=256 co=128 in=256 k=16 s=8 pad=4 bias=1"},
    {"hifigan", "ups2", "ci=128 co=64 in=2048 k=4 s=2 pad=1 bias=1"},
    {"hifigan", "ups3", "ci=64 co=32 in=4096 k=4 s=2 pad=1 bias=1"},
    {"melgan", "up0", "ci=512 co=256 in=32 k=16 s=8 pad=4 bias=1"},
    {"melgan", "up1", "ci=256 co=128 in=256 k=16 s=8 pad=4 bias=1"},
    {"melgan", "up2", "ci=128 co=64 in=2048 k=4 s=2 pad=1 bias=1"},
    {"melgan", "up3", "ci=64 co=32 in=4096 k=4 s=2 pad=1 bias=1"},
    {"encodec", "up8", "ci=512 co=256 in=75 k=16 s=8 pad=4:4 bias=1"},
    {"encodec", "up5", "ci=256 co=128 in=600 k=10 s=5 pad=3:2 bias=1"},
    {"encodec", "up4", "ci=128 co=64 in=3000 k=8 s=4 pad=2:2 bias=1"},
    {"encodec", "up2", "ci=64 co=32 in=12000 k=4 s=2 pad=1:1 bias=1"},
    {"encodec", "causal-up5", "ci=256 co=128 in=600 k=10 s=5 pad=0:5 bias=1"},
    {"unet3d", "upconv1-in4x6x6", "ci=512 co=512 in=4x6x6 k=2x2x2 s=2x2x2 bias=1"},
    {"unet3d", "upconv2-in4x6x6", "ci=256 co=256 in=4x6x6 k=2x2x2 s=2x2x2 bias=1"},
    {"unet3d", "upconv3-in4x6x6", "ci=128 co=128 in=4x6x6 k=2x2x2 s=2x2x2 bias=1"},
    {"vnet", "up1", "ci=256 co=128 in=4x8x8 k=2x2x2 s=2x2x2 bias=1"},
    {"vnet", "up2", "ci=256 co=64 in=8x16x16 k=2x2x2 s=2x2x2 bias=1"},
    {"vnet", "up3-in8x16x16", "ci=128 co=32 in=8x16x16 k=2x2x2 s=2x2x2 bias=1"},
    {"vnet", "up4-in8x16x16", "ci=64 co=16 in=8x16x16 k=2x2x2 s=2x2x2 bias=1"},
    {"yolov8-seg", "proto-n", "ci=64 co=64 in=80x80 k=2x2 s=2x2 bias=1"},
    {"yolov8-seg", "proto-s", "ci=128 co=128 in=80x80 k=2x2 s=2x2 bias=1"},
    {"fcn8s", "upscore2", "ci=21 co=21 in=16x16 k=4x4 s=2x2"},
    {"fcn8s", "upscore_pool4", "ci=21 co=21 in=34x34 k=4x4 s=2x2"},
    {"fcn8s", "upscore8", "ci=21 co=21 in=70x70 k=16x16 s=8x8"},
    {"benchdnn-alexnet", "deconv1", "ci=96 co=3 in=55x55 k=11x11 s=4x4 bias=1"},
    {"benchdnn-alexnet", "deconv2", "ci=256 co=96 g=2 in=27x27 k=5x5 pad=2x2 bias=1"},
    {"benchdnn-alexnet", "deconv3", "ci=384 co=256 in=13x13 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-alexnet", "deconv4", "ci=384 co=384 g=2 in=13x13 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-alexnet", "deconv5", "ci=256 co=384 g=2 in=13x13 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-alexnet", "dilated_deconv4",
     "ci=384 co=384 g=2 in=9x9 k=3x3 d=3x3 pad=1x1 bias=1"},
    {"benchdnn-googlenet", "conv1-7x7_s2",
     "ci=64 co=3 in=112x112 k=7x7 s=2x2 pad=3:2x3:2 bias=1"},
    {"benchdnn-googlenet", "inception_3a-5x5", "n=2 ci=32 co=16 in=28x28 k=5x5 pad=2x2 bias=1"},
    {"benchdnn-googlenet", "inception_4a-3x3", "n=2 ci=208 co=96 in=14x14 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-googlenet", "inception_5b-1x1", "n=2 ci=384 co=832 in=7x7 k=1x1 bias=1"},
    {"benchdnn-masknet", "deconv1-in128x128",
     "ci=64 co=3 in=128x128 k=7x7 s=2x2 op=1x1 bias=1"},
    {"benchdnn-unet3d", "dilated_deconv8", "ci=512 co=256 in=6x7x7 k=3x3x3 d=2x2x2 bias=1"},
    {"benchdnn-tails", "1d-tail_1st", "n=2 ci=17 co=3 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "1d-oc_tail_1x1", "n=2 ci=16 co=17 in=5 k=1 bias=1"},
    {"benchdnn-tails", "1d-ic_tail_1x1", "n=2 ci=17 co=16 in=5 k=1 bias=1"},
    {"benchdnn-tails", "1d-oc_tail_3x3", "n=2 ci=16 co=17 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "1d-ic_tail_3x3", "n=2 ci=17 co=16 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "1d-oc_tail_gemm", "n=2 ci=16 co=17 in=8 k=3 pad=3:2 bias=1"},
    {"benchdnn-tails", "1d-ic_tail_gemm", "n=2 ci=17 co=16 in=8 k=3 pad=3:2 bias=1"},
    {"benchdnn-tails", "1d-oc_tail_grouped", "n=2 ci=16 co=20 g=4 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "1d-ic_tail_grouped", "n=2 ci=20 co=16 g=4 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "1d-tail_depthwise", "n=2 ci=17 co=17 g=17 in=5 k=3 pad=1 bias=1"},
    {"benchdnn-tails", "2d-tail_1st", "n=2 ci=17 co=3 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "2d-oc_tail_1x1", "n=2 ci=16 co=17 in=5x5 k=1x1 bias=1"},
    {"benchdnn-tails", "2d-ic_tail_1x1", "n=2 ci=17 co=16 in=5x5 k=1x1 bias=1"},
    {"benchdnn-tails", "2d-oc_tail_3x3", "n=2 ci=16 co=17 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "2d-ic_tail_3x3", "n=2 ci=17 co=16 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "2d-oc_tail_gemm",
     "n=2 ci=16 co=17 in=8x8 k=3x3 pad=3:2x3:2 bias=1"},
    {"benchdnn-tails", "2d-ic_tail_gemm",
     "n=2 ci=17 co=16 in=8x8 k=3x3 pad=3:2x3:2 bias=1"},
    {"benchdnn-tails", "2d-oc_tail_grouped",
     "n=2 ci=16 co=20 g=4 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "2d-ic_tail_grouped",
     "n=2 ci=20 co=16 g=4 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "2d-tail_depthwise",
     "n=2 ci=17 co=17 g=17 in=5x5 k=3x3 pad=1x1 bias=1"},
    {"benchdnn-tails", "3d-tail_1st", "n=2 ci=17 co=3 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-oc_tail_1x1", "n=2 ci=16 co=17 in=5x5x5 k=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-ic_tail_1x1", "n=2 ci=17 co=16 in=5x5x5 k=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-oc_tail_3x3",
     "n=2 ci=16 co=17 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-ic_tail_3x3",
     "n=2 ci=17 co=16 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-oc_tail_gemm",
     "n=2 ci=16 co=17 in=8x8x8 k=3x3x3 pad=3:2x3:2x3:2 bias=1"},
    {"benchdnn-tails", "3d-ic_tail_gemm",
     "n=2 ci=17 co=16 in=8x8x8 k=3x3x3 pad=3:2x3:2x3:2 bias=1"},
    {"benchdnn-tails", "3d-oc_tail_grouped",
     "n=2 ci=16 co=20 g=4 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-ic_tail_grouped",
     "n=2 ci=20 co=16 g=4 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
    {"benchdnn-tails", "3d-tail_depthwise",
     "n=2 ci=17 co=17 g=17 in=5x5x5 k=3x3x3 pad=1x1x1 bias=1"},
};
#define NLAYERS (sizeof LAYERS / sizeof LAYERS[0])

/* The layer's backward cases (specification section 13), where the
 * direction's output has at most BWD_MAX elements: id
 * models.<net>.<layer>.bwd_d or .bwd_w, after the forward one. */
#define BWD_MAX 65536

static int plan_backward(iohw_plan *plan, const model_layer *m, const iohw_desc *fwd,
                         const char *tags, iohw_error *err)
{
    static const int32_t DIRS[2] = {IOHW_DIR_BWD_D, IOHW_DIR_BWD_W};
    for (int k = 0; k < 2; k++) {
        iohw_desc d = *fwd;
        d.p.direction = DIRS[k];
        if (DIRS[k] == IOHW_DIR_BWD_D)
            d.p.has_bias = 0;
        if (iohw_problem_out_count(&d.p) > BWD_MAX)
            continue;
        if (iohw_problem_validate(&d.p, err) != 0
            || iohw__plan_add(plan, IOHW__CAT_MODELS, &d, tags, 0, err) != 0)
            return -1;
        iohw_plan_case *c = &plan->cases[plan->count - 1];
        snprintf(c->id, sizeof c->id, "models.%s.%s.%s", m->net, m->layer,
                 k == 0 ? "bwd_d" : "bwd_w");
    }
    return 0;
}

int iohw__plan_models(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    char tags[IOHW_PLAN_TAGS_MAX];
    iohw_desc d;

    for (size_t i = 0; pr->models && i < NLAYERS; i++) {
        const model_layer *m = &LAYERS[i];
        snprintf(tags, sizeof tags, "models,model-%s", m->net);
        if (iohw__desc_from(m->desc, IOHW_F32, "exact", &d, err) != 0 ||
            iohw__plan_add(plan, IOHW__CAT_MODELS, &d, tags, 0, err) != 0)
            return iohw_error_prefix(err, "models: %s %s", m->net, m->layer);
        iohw_plan_case *c = &plan->cases[plan->count - 1];
        snprintf(c->id, sizeof c->id, "models.%s.%s", m->net, m->layer);
    }
    /* The backward cases after every forward one: the forward cases keep
     * their seeds. */
    for (size_t i = 0; pr->models && i < NLAYERS; i++) {
        const model_layer *m = &LAYERS[i];
        snprintf(tags, sizeof tags, "models,model-%s", m->net);
        if (iohw__desc_from(m->desc, IOHW_F32, "exact", &d, err) != 0
            || plan_backward(plan, m, &d, tags, err) != 0)
            return iohw_error_prefix(err, "models: %s %s backward", m->net, m->layer);
    }
    return 0;
}
