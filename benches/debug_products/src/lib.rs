//! Product graphs (issue 33 item 1): the debug build's compile cost with the debug
//! backend on (block programs, the GEMM calls) and off (fused kernels).
tensorgraph::graph! {
    pub fn l1(x: f32[B, 512], w: f32[512, 512], b: f32[512]) -> f32[B, 512] { relu(x @ w + b) }
    pub fn l2(x: f32[B, 768], w: f32[768, 3072], b: f32[3072]) -> f32[B, 3072] { gelu(x @ w + b) }
    pub fn l3(x: f32[B, 64], w: f32[64, 10]) -> f32[B, 10] { softmax(x @ w, axis = -1) }
    pub fn l4(q: f32[H, S, 64], k: f32[H, S, 64]) -> f32[H, S, S] {
        softmax(einsum("hqd,hkd->hqk", q, k) * 0.125, axis = -1)
    }
    pub fn l5(x: f32[N, 3, 32, 32], w: f32[16, 3, 3, 3], b: f32[16]) -> f32[N, 16, 32, 32] {
        relu(conv(x, w, b, pads = [1, 1, 1, 1]))
    }
    pub fn l6(x: f32[B, 256], w1: f32[256, 256], w2: f32[256, 256]) -> f32[B, 256] { relu(x @ w1) @ w2 }
    pub fn l7(x: f32[B, 128], w: f32[128, 128], g: f32[128], b: f32[128]) -> f32[B, 128] {
        layer_norm(x @ w, g, b)
    }
    pub fn l8(x: f64[B, 32], w: f64[32, 32]) -> f64[B, 32] { tanh(x @ w) }
    pub fn l9(x: f32[B, 100], w: f32[100, 50], b: f32[50]) -> f32[B, 50] { sigmoid(x @ w + b) * 2.0 - 1.0 }
    pub fn l10(x: f32[N, 8, 16, 16], w: f32[8, 8, 3, 3]) -> f32[N, 8, 8, 8] {
        max_pool(relu(conv(x, w, pads = [1, 1, 1, 1])), kernel_shape = [2, 2], strides = [2, 2])
    }
}
