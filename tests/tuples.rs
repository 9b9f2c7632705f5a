//! Tuple-valued ops (`split`) bound with `let (a, b) = …` or returned as the outputs,
//! against the same parts cut out by hand.

use tensorgraph::prelude::*;

graph! {
    fn halves(x: f32[6, 4]) -> (f32[2, 4], f32[4, 4]) { split(x, [2, 4]) }
    fn cols(x: i32[3, 7]) -> i32[3, 4] {
        let (a, b, c) = split(x, [2, 3, 2], axis = 1);
        concat([a * 10, c], axis = 1) + sum(b, axis = 1, keepdims = true, dtype = i32)
    }
    fn head_rest(x: f32[N, 2]) -> (f32[1, 2], f32[N - 3, 2], f32[2, 2]) { split(x, [1, -1, 2]) }
    fn qkv(x: f32[B, 12]) -> f32[B, 4] {
        let (q, k, v) = split(x, [4, 4, 4], axis = -1);
        q * k + v
    }
}

#[test]
fn parts_are_the_slices() {
    let x: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let (a, b) = halves(&Tensor::from_vec(x.clone()).unwrap());
    assert_eq!(a.as_slice(), &x[..8]);
    assert_eq!(b.as_slice(), &x[8..]);

    let xi: Vec<i32> = (0..21).collect();
    let y = cols(&Tensor::from_vec(xi.clone()).unwrap());
    for r in 0..3 {
        let row = &xi[r * 7..(r + 1) * 7];
        let s: i32 = row[2..5].iter().sum();
        let want = [row[0] * 10 + s, row[1] * 10 + s, row[5] + s, row[6] + s];
        assert_eq!(&y.as_slice()[r * 4..(r + 1) * 4], &want);
    }

    for n in [3usize, 4, 9] {
        let x: Vec<f32> = (0..n * 2).map(|i| i as f32).collect();
        let (h, m, t) = head_rest(&x).unwrap();
        assert_eq!(h.as_slice(), &x[..2]);
        assert_eq!(m.as_slice(), &x[2..(n - 2) * 2]);
        assert_eq!(t.as_slice(), &x[(n - 2) * 2..]);
    }
    // Shorter than the literal parts: an `Err`, not a panic.
    assert!(head_rest(&[0.0f32; 4][..]).is_err());

    let x: Vec<f32> = (0..36).map(|i| i as f32 * 0.5).collect();
    let y = qkv(&x).unwrap();
    for r in 0..3 {
        for c in 0..4 {
            let row = &x[r * 12..(r + 1) * 12];
            assert_eq!(y[[r, c]], row[c] * row[4 + c] + row[8 + c]);
        }
    }
}
