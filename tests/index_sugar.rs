//! NumPy indexing sugar (`x[1]`, `x[:, 1:-1:2]`, `x[..., 0]`, `x[None]`) against the same
//! selections written out with loops over NumPy's rules.

use tensorgraph::prelude::*;

graph! {
    fn first(x: f32[4, 5, 6]) -> f32[5, 6] { x[1] }
    fn inner(x: f32[4, 5, 6]) -> f32[4, 2, 6] { x[:, 1:-1:2] }
    fn last_col(x: f32[4, 5, 6]) -> f32[4, 5] { x[..., 0] }
    fn lead(x: f32[4, 5, 6]) -> f32[1, 4, 5, 6] { x[None] }
    fn mixed(x: f32[4, 5, 6]) -> f32[5, 1] { x[-1, ::-1, None, 2] }
    fn ends(x: f32[4, 5, 6]) -> f32[4, 6, 1] { x[..., -1, :, None] * 2.0 }
    fn named(x: f32[N, 8]) -> (f32[N - 1, 8], f32[8], f32[(N + 1) / 2, 4]) { (x[1:], x[-1], x[::2, 4:]) }
}

fn cube() -> Vec<f32> {
    (0..120).map(|i| i as f32).collect()
}

fn at(x: &[f32], a: usize, b: usize, c: usize) -> f32 {
    x[(a * 5 + b) * 6 + c]
}

#[test]
fn numpy_selections() {
    let x = cube();
    let t = Tensor::<f32, Shape![4, 5, 6]>::from_vec(x.clone()).unwrap();
    let want: Vec<f32> = (0..5)
        .flat_map(|b| (0..6).map(move |c| (b, c)))
        .map(|(b, c)| at(&x, 1, b, c))
        .collect();
    assert_eq!(first(&t).as_slice(), &want[..]);
    let want: Vec<f32> = (0..4)
        .flat_map(|a| {
            [1usize, 3]
                .into_iter()
                .flat_map(move |b| (0..6).map(move |c| (a, b, c)))
        })
        .map(|(a, b, c)| at(&x, a, b, c))
        .collect();
    assert_eq!(inner(&t).as_slice(), &want[..]);
    let want: Vec<f32> = (0..4)
        .flat_map(|a| (0..5).map(move |b| (a, b)))
        .map(|(a, b)| at(&x, a, b, 0))
        .collect();
    assert_eq!(last_col(&t).as_slice(), &want[..]);
    assert_eq!(lead(&t).as_slice(), &x[..]);
    let want: Vec<f32> = (0..5).rev().map(|b| at(&x, 3, b, 2)).collect();
    assert_eq!(mixed(&t).as_slice(), &want[..]);
    let want: Vec<f32> = (0..4)
        .flat_map(|a| (0..6).map(move |c| (a, c)))
        .map(|(a, c)| at(&x, a, 4, c) * 2.0)
        .collect();
    assert_eq!(ends(&t).as_slice(), &want[..]);
    for n in [1usize, 2, 5, 9] {
        let x: Vec<f32> = (0..n * 8).map(|i| i as f32).collect();
        let (a, b, c) = named(&x).unwrap();
        assert_eq!(a.as_slice(), &x[8..]);
        assert_eq!(b.as_slice(), &x[(n - 1) * 8..]);
        let want: Vec<f32> = (0..n)
            .step_by(2)
            .flat_map(|r| (4..8).map(move |k| (r, k)))
            .map(|(r, k)| x[r * 8 + k])
            .collect();
        assert_eq!(c.as_slice(), &want[..], "n = {n}");
    }
    // `x[-1]` of an empty axis: the call says the axis is too short.
    assert!(named(&[][..]).is_err());
}
