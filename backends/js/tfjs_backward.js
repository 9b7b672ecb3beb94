/*
 * The backward directions (specification section 13) for tfjs_backend.js:
 * the gradients of the forward call, tf.conv2dTranspose(x NHWC, filter
 * HWOI, outputShape, strides, pad), taken by tfjs's own autodiff (tf.grads)
 * with dy as the upstream gradient:
 *
 *   BWD_D  dx = the gradient with respect to x   (NHWC)
 *   BWD_W  dw = the gradient with respect to the filter (HWOI),
 *          db = tf.sum of dy over N, H and W (the bias is added with
 *          tf.add, as in the forward direction).
 *
 * tfjs-core 4.22's node bundle registers no gradients: its gradient configs
 * (dist/gradients, register_all_gradients) are ES modules with imports
 * Node cannot resolve, so tf.grads of conv2dTranspose throws "gradient
 * function not found for Conv2DBackpropInput".  registerConv2dTransposeGrad
 * registers tfjs's own config for that kernel (tfjs-core
 * src/gradients/Conv2DBackpropInput_grad.ts) through the public API:
 * conv2d for the input, the Conv2DBackpropFilter kernel for the filter.
 * tfjs defines no gradient for Conv3DBackpropInputV2 (conv3dTranspose):
 * tfjs_backend.js refuses rank 3.
 */
'use strict';

let registered = false;

function registerConv2dTransposeGrad(tf) {
    if (registered || tf.getGradient('Conv2DBackpropInput') != null) {
        registered = true;
        return;
    }
    tf.registerGradient({
        kernelName: 'Conv2DBackpropInput',
        inputsToSave: ['dy', 'filter'],
        gradFunc: (ddx, saved, attrs) => {
            const [dy, filter] = saved;
            const { strides, pad, dataFormat, dimRoundingMode } = attrs;
            return {
                dy: () => tf.conv2d(ddx, filter, strides, pad, dataFormat, 1,
                                    dimRoundingMode),
                filter: () => tf.engine().runKernel('Conv2DBackpropFilter',
                    { x: ddx, dy }, { strides, pad, dataFormat,
                                      dimRoundingMode,
                                      filterShape: filter.shape }),
            };
        },
    });
    registered = true;
}

function bytesOf(t) {
    const v = t.dataSync().slice();
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function checkShape(t, want, name) {
    if (t.shape.join() !== want.join())
        throw new Error('tfjs returned ' + name + ' [' + t.shape.join(',') +
                        '] where [' + want.join(',') + '] is right');
}

/* {dx} or {dw, db} as bytes, for a rank-2 case tfjs_backend.js's
 * refusal() passed; pad is its padArgument(). */
async function run(tf, c, pad, tensorOf) {
    registerConv2dTransposeGrad(tf);
    const p = c.problem;
    const outShape = [p.batch].concat(p.out_size, [p.out_channels]);
    const xShape = [p.batch].concat(p.in_size, [p.in_channels]);
    const wShape = p.kernel.concat([p.out_channels, p.in_channels]);
    return tf.tidy(() => {
        const tdy = tensorOf(tf, c.dy);
        checkShape(tdy, outShape, 'dy');
        const f = (x, w) => tf.conv2dTranspose(x, w, outShape, p.stride, pad);
        if (p.direction === 1) {
            const tw = tensorOf(tf, c.w);
            const dx = tf.grad((x) => f(x, tw))(tf.zeros(xShape), tdy);
            checkShape(dx, xShape, 'dx');
            return { dx: bytesOf(dx) };
        }
        const tx = tensorOf(tf, c.x);
        const dw = tf.grad((w) => f(tx, w))(tf.zeros(wShape), tdy);
        checkShape(dw, wShape, 'dw');
        const out = { dw: bytesOf(dw) };
        if (p.has_bias)
            out.db = bytesOf(tf.sum(tdy, [0, 1, 2]));
        return out;
    });
}

module.exports = { run };
