//! `slice`, `flip`, `pad`, `tile`, `concat` against references written here by index
//! arithmetic (NumPy's rules: `x[s:e:t]`, `np.flip`, `np.pad` constant/reflect/edge,
//! `np.tile`, `np.concatenate`), for every dtype, fused with elementwise producers and
//! consumers and with reductions on either side, with literal and named dims, lengths
//! around the SIMD width and large enough to be split across threads.

mod common;
use common::*;
use tensorgraph::prelude::*;

/// A row-major array for the references.
#[derive(Clone, Debug, PartialEq)]
struct Nd<T> {
    dims: Vec<usize>,
    data: Vec<T>,
}

impl<T: Copy> Nd<T> {
    fn new(dims: &[usize], data: Vec<T>) -> Self {
        assert_eq!(dims.iter().product::<usize>(), data.len());
        Nd {
            dims: dims.to_vec(),
            data,
        }
    }

    fn strides(dims: &[usize]) -> Vec<usize> {
        let mut s = vec![1; dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            s[k] = s[k + 1] * dims[k + 1];
        }
        s
    }

    /// Every output index, row-major, mapped to an element by `f` (which returns `None` for
    /// a fill).
    fn build(dims: &[usize], f: impl Fn(&[usize]) -> T) -> Self {
        let n: usize = dims.iter().product();
        let strides = Self::strides(dims);
        let data = (0..n)
            .map(|flat| {
                let idx: Vec<usize> = strides
                    .iter()
                    .zip(dims)
                    .map(|(&s, &d)| (flat / s) % d.max(1))
                    .collect();
                f(&idx)
            })
            .collect();
        Nd::new(dims, data)
    }

    fn at(&self, idx: &[usize]) -> T {
        let strides = Self::strides(&self.dims);
        self.data[idx.iter().zip(&strides).map(|(i, s)| i * s).sum::<usize>()]
    }

    /// NumPy's `x[..., s:e:t, ...]` on `axis`, by walking the range.
    fn slice(&self, axis: usize, s: Option<i64>, e: Option<i64>, t: i64) -> Self {
        let n = self.dims[axis] as i64;
        let norm = |v: i64| if v < 0 { v + n } else { v };
        let mut picked = Vec::new();
        if t > 0 {
            let mut i = s.map(norm).unwrap_or(0).clamp(0, n);
            let e = e.map(norm).unwrap_or(n).clamp(0, n);
            while i < e {
                picked.push(i as usize);
                i += t;
            }
        } else {
            let mut i = s.map(norm).unwrap_or(n - 1).clamp(-1, n - 1);
            let e = e.map(norm).unwrap_or(-1).clamp(-1, n - 1);
            while i > e {
                picked.push(i as usize);
                i += t;
            }
        }
        let mut dims = self.dims.clone();
        dims[axis] = picked.len();
        Self::build(&dims, |idx| {
            let mut src = idx.to_vec();
            src[axis] = picked[idx[axis]];
            self.at(&src)
        })
    }

    fn flip(&self, axis: usize) -> Self {
        Self::build(&self.dims, |idx| {
            let mut src = idx.to_vec();
            src[axis] = self.dims[axis] - 1 - idx[axis];
            self.at(&src)
        })
    }

    /// `np.pad` with (before, after) per axis; negative counts crop.
    fn pad(&self, pads: &[(i64, i64)], mode: &str, fill: T) -> Self {
        let dims: Vec<usize> = self
            .dims
            .iter()
            .zip(pads)
            .map(|(&n, &(b, a))| (n as i64 + b + a) as usize)
            .collect();
        Self::build(&dims, |idx| {
            let mut src = Vec::new();
            for (k, &i) in idx.iter().enumerate() {
                let n = self.dims[k] as i64;
                let mut j = i as i64 - pads[k].0;
                if j < 0 || j >= n {
                    match mode {
                        "constant" => return fill,
                        "edge" => j = j.clamp(0, n - 1),
                        _ => {
                            // Mirror without repeating the edge.
                            while j < 0 || j >= n {
                                j = if j < 0 { -j } else { 2 * (n - 1) - j };
                            }
                        }
                    }
                }
                src.push(j as usize);
            }
            self.at(&src)
        })
    }

    fn tile(&self, reps: &[usize]) -> Self {
        let dims: Vec<usize> = self.dims.iter().zip(reps).map(|(n, r)| n * r).collect();
        Self::build(&dims, |idx| {
            let src: Vec<usize> = idx.iter().zip(&self.dims).map(|(i, n)| i % n).collect();
            self.at(&src)
        })
    }

    fn concat(parts: &[Self], axis: usize) -> Self {
        let mut dims = parts[0].dims.clone();
        dims[axis] = parts.iter().map(|p| p.dims[axis]).sum();
        Self::build(&dims, |idx| {
            let mut i = idx[axis];
            for p in parts {
                if i < p.dims[axis] {
                    let mut src = idx.to_vec();
                    src[axis] = i;
                    return p.at(&src);
                }
                i -= p.dims[axis];
            }
            unreachable!()
        })
    }

    fn map<U: Copy>(&self, f: impl Fn(T) -> U) -> Nd<U> {
        Nd::new(&self.dims, self.data.iter().map(|&v| f(v)).collect())
    }
}

fn same_bits<T: TestElem + std::fmt::Debug>(got: &[T], want: &Nd<T>, what: &str) {
    assert_eq!(got.len(), want.data.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(&want.data).enumerate() {
        assert!(T::same(g, w), "{what} at {i}: {g:?} vs {w:?}");
    }
}

graph! {
    fn slices(x: f32[5, 7]) -> (f32[5, 3], f32[3, 7], f32[5, 2], f32[5, 2], f32[5, 0], f32[2, 2]) {
        (slice(x, axis = 1, start = 1, end = 4),
         slice(x, axis = 0, step = -2),
         slice(x, axis = -1, start = -2, end = 100),
         slice(x, axis = 1, start = 6, end = 0, step = -3),
         slice(x, axis = 1, start = 3, end = 3),
         slice(slice(x, axis = 0, start = 1, step = 3), axis = 1, start = -1, end = -6, step = -4))
    }
    fn flips(x: f32[5, 37]) -> (f32[5, 37], f32[5, 37], f32[5, 37]) {
        (flip(x, axis = 1), flip(x), flip(x, axis = [0]))
    }
    fn pads(x: f32[5, 7], v: f32) -> (f32[8, 10], f32[8, 10], f32[8, 11], f32[5, 6], f32[7, 9]) {
        (pad(x, [1, 2, 0, 3], value = -1.5),
         pad(x, [2, 1, 3, 0], mode = reflect),
         pad(x, [0, 3, 2, 2], mode = edge),
         pad(x, [-1, 1, 2, -3]),
         pad(x, [1, 1, 1, 1], value = v))
    }
    fn tiles(x: f32[3, 5], y: u8[4]) -> (f32[6, 15], u8[0], u8[12]) {
        (tile(x, [2, 3]), tile(y, [0]), tile(y, [3]))
    }
    fn concats(a: f32[2, 5], b: f32[3, 5], c: f32[1, 5], d: f32[2, 11]) -> (f32[6, 5], f32[2, 16], f32[2, 21]) {
        (concat([a, b, c], axis = 0), concat([d, a], axis = -1), concat([a, d, a], axis = 1))
    }
    fn concat_promotes(a: i8[3], b: i16[2], c: u8[4]) -> i16[9] { concat([a, b, c], axis = 0) }
    // Producers and consumers fuse through the index maps; reductions on both sides.
    fn fused(x: f32[4, 9], y: f32[4, 9]) -> (f32[4, 9], f32[4], f32[4, 12], i64[4], f32[4, 9]) {
        (exp(flip(x, axis = 1)) * slice(y, axis = 0, step = -1),
         sum(pad(x * y, [0, 0, 2, 1], value = 1.0), axis = 1),
         max(concat([x, slice(y, axis = 1, end = 3)], axis = 1), 0.0) + 1.0,
         argmax(concat([x, x], axis = 1), axis = 1),
         flip(softmax(x, axis = 1), axis = 1))
    }
    fn sym(x: f32[B, 6]) -> (f32[3, 6], f32[B, 6], f32[4, 6], f32[B, 12], f32[B, 12], f32[2, 6]) {
        (slice(x, axis = 0, start = 1, end = 4),
         flip(x, axis = 0),
         slice(x, axis = 0, start = -4),
         pad(x, [0, 0, 3, 3], mode = reflect),
         concat([x, flip(x, axis = 1)], axis = 1),
         slice(x, axis = 0, start = -1, end = -5, step = -2))
    }
    fn big(a: f32[300000], b: f32[300001]) -> (f32[600001], f32[300000], f32[300001]) {
        (concat([a, b], axis = 0), flip(a, axis = 0), pad(slice(b, axis = 0, start = 1), [1, 0]) * 2.0)
    }
}

/// A tensor holding a reference array's data (its static shape comes from the call).
macro_rules! t {
    ($n:expr) => {
        Tensor::from_vec($n.data.clone()).unwrap()
    };
}

fn nd(dims: &[usize], seed: u64) -> Nd<f32> {
    let n = dims.iter().product();
    Nd::new(dims, f32::random(n, seed))
}

#[test]
fn slices_follow_numpy() {
    let x = nd(&[5, 7], 1);
    let (a, b, c, d, e, f) = slices(&Tensor::from_vec(x.data.clone()).unwrap());
    same_bits(a.as_slice(), &x.slice(1, Some(1), Some(4), 1), "1:4");
    same_bits(b.as_slice(), &x.slice(0, None, None, -2), "::-2");
    same_bits(c.as_slice(), &x.slice(1, Some(-2), Some(100), 1), "-2:100");
    same_bits(d.as_slice(), &x.slice(1, Some(6), Some(0), -3), "6:0:-3");
    assert!(e.as_slice().is_empty());
    let nested = x
        .slice(0, Some(1), None, 3)
        .slice(1, Some(-1), Some(-6), -4);
    same_bits(f.as_slice(), &nested, "nested");
}

#[test]
fn flips_every_axis() {
    let x = nd(&[5, 37], 2);
    let (a, b, c) = flips(&Tensor::from_vec(x.data.clone()).unwrap());
    same_bits(a.as_slice(), &x.flip(1), "axis 1");
    same_bits(b.as_slice(), &x.flip(0).flip(1), "all axes");
    same_bits(c.as_slice(), &x.flip(0), "axis [0]");
}

#[test]
fn pads_in_every_mode() {
    let x = nd(&[5, 7], 3);
    let t = Tensor::from_vec(x.data.clone()).unwrap();
    let (a, b, c, d, e) = pads(&t, 2.5);
    same_bits(
        a.as_slice(),
        &x.pad(&[(1, 2), (0, 3)], "constant", -1.5),
        "constant",
    );
    same_bits(
        b.as_slice(),
        &x.pad(&[(2, 1), (3, 0)], "reflect", 0.0),
        "reflect",
    );
    same_bits(c.as_slice(), &x.pad(&[(0, 3), (2, 2)], "edge", 0.0), "edge");
    same_bits(
        d.as_slice(),
        &x.pad(&[(-1, 1), (2, -3)], "constant", 0.0),
        "crop",
    );
    same_bits(
        e.as_slice(),
        &x.pad(&[(1, 1), (1, 1)], "constant", 2.5),
        "scalar value",
    );
}

#[test]
fn tiles_repeat() {
    let x = nd(&[3, 5], 4);
    let y = Nd::new(&[4], vec![1u8, 2, 250, 7]);
    let (a, b, c) = tiles(
        &Tensor::from_vec(x.data.clone()).unwrap(),
        &Tensor::from_vec(y.data.clone()).unwrap(),
    );
    same_bits(a.as_slice(), &x.tile(&[2, 3]), "2x3");
    assert!(b.as_slice().is_empty());
    same_bits(c.as_slice(), &y.tile(&[3]), "u8 x3");
}

graph! {
    // Many regions (the product of the repeat counts past 8): a broadcast and a reshape, one
    // nest, instead of 336 (which crashed rustc's release build, issue 33).
    fn tile_many(a: f32[2, 3, 4, 5]) -> f32[14, 18, 16, 10] { tile(a, [7, 6, 4, 2]) }
    fn tile_many_consumed(a: i16[2, 3], b: i16[6, 12]) -> i16[6, 12] { tile(a, [3, 4]) * b + 1 }
    fn tile_many_named(a: f32[B, 2, 3]) -> f32[B, 6, 12] { tile(a * 2.0 - 1.0, [1, 3, 4]) }
    fn tile_many_empty(a: u8[2, 3, 4]) -> u8[0, 9, 16] { tile(a, [0, 3, 4]) }
}

#[test]
fn tiles_with_many_repeats() {
    let x = nd(&[2, 3, 4, 5], 21);
    let got = tile_many(&Tensor::from_vec(x.data.clone()).unwrap());
    same_bits(got.as_slice(), &x.tile(&[7, 6, 4, 2]), "7x6x4x2");
    let a = Nd::new(&[2, 3], vec![1i16, -2, 300, 4, 5, i16::MAX]);
    let b = Nd::new(&[6, 12], (0..72).map(|i| i as i16 - 30).collect());
    let got = tile_many_consumed(
        &Tensor::from_vec(a.data.clone()).unwrap(),
        &Tensor::from_vec(b.data.clone()).unwrap(),
    );
    let tiled = a.tile(&[3, 4]);
    let want: Vec<i16> = (0..72)
        .map(|i| tiled.data[i].wrapping_mul(b.data[i]).wrapping_add(1))
        .collect();
    same_bits(got.as_slice(), &Nd::new(&[6, 12], want), "consumed");
    for rows in [0usize, 1, 5] {
        let x: Vec<f32> = (0..rows * 6).map(|i| i as f32 / 8.0 - 2.0).collect();
        let got = tile_many_named(&x).unwrap();
        assert_eq!(got.shape(), &[rows, 6, 12]);
        let e = Nd::new(&[rows, 2, 3], x.iter().map(|v| v * 2.0 - 1.0).collect());
        same_bits(
            got.as_slice(),
            &e.tile(&[1, 3, 4]),
            &format!("named, B = {rows}"),
        );
    }
    let got = tile_many_empty(&Tensor::from_vec((0..24).collect()).unwrap());
    assert!(got.as_slice().is_empty());
}

graph! {
    // More regions than a box may be cut into (`MAX_REGIONS`, 32; issue 33): a pad of every
    // axis is one pad per axis, lowered through temps; a box cut by several nodes puts one
    // of them in a temp; a concat of many parts is a concat of groups. Each of these, one
    // nest per region, took minutes or overflowed rustc's stack in a release build.
    fn pad_every_axis(a: f32[3, 3, 3, 3, 3, 3]) -> (f32[5, 5, 5, 5, 5, 5], f32[5, 5, 5, 5, 5, 5], f32[4, 6, 3, 5, 4, 6]) {
        (
            pad(a, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], mode = reflect),
            pad(a, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], mode = edge) + 1.0,
            pad(a * 2.0, [1, 0, 0, 3, 1, -1, 2, 0, 0, 1, 1, 2], value = -1.0),
        )
    }
    fn pad_reduced(a: f32[3, 4, 3, 5]) -> (f32[5, 6, 5], f32[5, 6, 5, 7]) {
        let p = pad(a, [1, 1, 1, 1, 1, 1, 1, 1], mode = reflect);
        (sum(p, axis = 3), p)
    }
    fn pad_of_tile(a: f32[2, 3, 4, 5, 3]) -> f32[4, 6, 8, 7, 5] {
        pad(tile(a, [2, 2, 2, 1, 1]), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], mode = reflect)
    }
    fn pads_of_pads(a: f32[2, 3, 4, 5, 6, 7]) -> f32[4, 5, 6, 7, 8, 9] {
        pad(pad(a, [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], mode = edge), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], mode = reflect) * 2.0
    }
    fn pad_named_every_axis(a: f32[B, 3, 4, 3, 3]) -> f32[B, 5, 6, 5, 5] {
        pad(a, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1], mode = reflect)
    }
    fn concat_many(a: f32[2, 3], b: f32[1, 3]) -> f32[60, 3] { concat([a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b], axis = 0) }
}

#[test]
fn many_regions_are_bounded() {
    let a = nd(&[3; 6], 41);
    let (r, e, c) = pad_every_axis(&Tensor::from_vec(a.data.clone()).unwrap());
    same_bits(
        r.as_slice(),
        &a.pad(&[(1, 1); 6], "reflect", 0.0),
        "reflect, rank 6",
    );
    let edge = a.pad(&[(1, 1); 6], "edge", 0.0).map(|v| v + 1.0);
    same_bits(e.as_slice(), &edge, "edge, rank 6");
    let pads = [(1, 0), (0, 3), (1, -1), (2, 0), (0, 1), (1, 2)];
    same_bits(
        c.as_slice(),
        &a.map(|v| v * 2.0).pad(&pads, "constant", -1.0),
        "constant, rank 6",
    );

    let a = nd(&[3, 4, 3, 5], 42);
    let (s, p) = pad_reduced(&Tensor::from_vec(a.data.clone()).unwrap());
    let want = a.pad(&[(1, 1); 4], "reflect", 0.0);
    same_bits(p.as_slice(), &want, "reflect, rank 4");
    let sums: Vec<f32> = want.data.chunks(7).map(|row| row.iter().sum()).collect();
    for (i, (&g, &w)) in s.as_slice().iter().zip(&sums).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "sum at {i}: {g} vs {w}"
        );
    }

    let a = nd(&[2, 3, 4, 5, 3], 43);
    let got = pad_of_tile(&Tensor::from_vec(a.data.clone()).unwrap());
    let want =
        a.tile(&[2, 2, 2, 1, 1])
            .pad(&[(0, 0), (0, 0), (0, 0), (1, 1), (1, 1)], "reflect", 0.0);
    same_bits(got.as_slice(), &want, "pad of tile");

    let a = nd(&[2, 3, 4, 5, 6, 7], 44);
    let got = pads_of_pads(&Tensor::from_vec(a.data.clone()).unwrap());
    let inner = a.pad(
        &[(1, 1), (1, 1), (1, 1), (0, 0), (0, 0), (0, 0)],
        "edge",
        0.0,
    );
    let want = inner
        .pad(
            &[(0, 0), (0, 0), (0, 0), (1, 1), (1, 1), (1, 1)],
            "reflect",
            0.0,
        )
        .map(|v| v * 2.0);
    same_bits(got.as_slice(), &want, "pads of pads");

    for b in [0usize, 1, 3] {
        let a = nd(&[b, 3, 4, 3, 3], 45 + b as u64);
        let t =
            Tensor::<f32, Shape![_, 3, 4, 3, 3]>::from_shape_vec([b, 3, 4, 3, 3], a.data.clone())
                .unwrap();
        let got = pad_named_every_axis(&t).unwrap();
        let want = a.pad(&[(0, 0), (1, 1), (1, 1), (1, 1), (1, 1)], "reflect", 0.0);
        same_bits(got.as_slice(), &want, &format!("named, B = {b}"));
    }

    let (a, b) = (nd(&[2, 3], 46), nd(&[1, 3], 47));
    let got = concat_many(
        &Tensor::from_vec(a.data.clone()).unwrap(),
        &Tensor::from_vec(b.data.clone()).unwrap(),
    );
    let parts: Vec<Nd<f32>> = (0..40)
        .map(|i| if i % 2 == 0 { a.clone() } else { b.clone() })
        .collect();
    same_bits(got.as_slice(), &Nd::concat(&parts, 0), "40 parts");
}

#[test]
fn concats_place_each_part() {
    let (a, b, c, d) = (
        nd(&[2, 5], 5),
        nd(&[3, 5], 6),
        nd(&[1, 5], 7),
        nd(&[2, 11], 8),
    );
    let (r0, r1, r2) = concats(&t!(a), &t!(b), &t!(c), &t!(d));
    same_bits(r0.as_slice(), &Nd::concat(&[a.clone(), b, c], 0), "axis 0");
    same_bits(
        r1.as_slice(),
        &Nd::concat(&[d.clone(), a.clone()], 1),
        "axis -1",
    );
    same_bits(
        r2.as_slice(),
        &Nd::concat(&[a.clone(), d, a], 1),
        "three parts",
    );

    let (p, q, r) = (
        vec![-128i8, 5, 127],
        vec![-300i16, 32767],
        vec![0u8, 1, 200, 255],
    );
    let got = concat_promotes(
        &Tensor::from_vec(p.clone()).unwrap(),
        &Tensor::from_vec(q.clone()).unwrap(),
        &Tensor::from_vec(r.clone()).unwrap(),
    );
    let want: Vec<i16> = p
        .iter()
        .map(|&v| v as i16)
        .chain(q)
        .chain(r.iter().map(|&v| v as i16))
        .collect();
    assert_eq!(got.as_slice(), &want[..]);
}

#[test]
fn reorganisations_fuse_with_their_neighbours() {
    let (x, y) = (nd(&[4, 9], 9), nd(&[4, 9], 10));
    let (a, b, c, d, e) = fused(&t!(x), &t!(y));
    // exp is the library's vector exp: compare with the reference's within 1 ulp (f32
    // rounds once from the f64 evaluation, see ACCURACY.md), the rest exactly.
    let fx = x.flip(1);
    let sy = y.slice(0, None, None, -1);
    for (i, &g) in a.as_slice().iter().enumerate() {
        let w = ((fx.data[i] as f64).exp() as f32) * sy.data[i];
        assert!(
            f32::ulps(g, w) <= 1.0,
            "exp(flip) * slice at {i}: {g} vs {w}"
        );
    }
    let xy = Nd::new(
        &[4, 9],
        x.data.iter().zip(&y.data).map(|(a, b)| a * b).collect(),
    );
    let padded = xy.pad(&[(0, 0), (2, 1)], "constant", 1.0);
    for r in 0..4 {
        let want: f64 = (0..12).map(|c| padded.at(&[r, c]) as f64).sum();
        let g = b.as_slice()[r];
        assert!(
            (g as f64 - want).abs() <= 1e-5 * (1.0 + want.abs()),
            "sum(pad) row {r}: {g} vs {want}"
        );
    }
    let cat = Nd::concat(&[x.clone(), y.slice(1, None, Some(3), 1)], 1);
    same_bits(
        c.as_slice(),
        &cat.map(|v| v.max(0.0) + 1.0),
        "max(concat) + 1",
    );
    let cat2 = Nd::concat(&[x.clone(), x.clone()], 1);
    for r in 0..4 {
        // The first maximum: ties between the two copies go to the first part.
        let row: Vec<f32> = (0..18).map(|c| cat2.at(&[r, c])).collect();
        let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let want = row.iter().position(|&v| v == m).unwrap() as i64;
        assert_eq!(d.as_slice()[r], want, "argmax row {r}");
    }
    // softmax in f32: `x - max` rounds to f32 before `exp` (the kernel's order), then the
    // f64 reference; a few ulps of f32 for the exp, the sum and the division.
    for r in 0..4 {
        let m = (0..9)
            .map(|c| x.at(&[r, c]))
            .fold(f32::NEG_INFINITY, f32::max);
        let z: f64 = (0..9).map(|c| ((x.at(&[r, c]) - m) as f64).exp()).sum();
        for c in 0..9 {
            let want = ((x.at(&[r, 8 - c]) - m) as f64).exp() / z;
            let g = e.as_slice()[r * 9 + c] as f64;
            assert!(
                (g - want).abs() <= 1e-6 * want + 1.5e-45,
                "flip(softmax) {r},{c}: {g} vs {want}"
            );
        }
    }
}

#[test]
fn named_axes_slice_flip_and_keep_literal_pieces() {
    for b in [4usize, 5, 8, 13] {
        let x = nd(&[b, 6], 11 + b as u64);
        let t = Tensor::<f32, Shape![_, 6]>::from_shape_vec([b, 6], x.data.clone()).unwrap();
        let (p, q, r, s, u, v) = sym(&t).unwrap();
        same_bits(p.as_slice(), &x.slice(0, Some(1), Some(4), 1), "1:4 of B");
        same_bits(q.as_slice(), &x.flip(0), "flip B");
        same_bits(r.as_slice(), &x.slice(0, Some(-4), None, 1), "-4: of B");
        same_bits(
            s.as_slice(),
            &x.pad(&[(0, 0), (3, 3)], "reflect", 0.0),
            "reflect pad",
        );
        same_bits(
            u.as_slice(),
            &Nd::concat(&[x.clone(), x.flip(1)], 1),
            "concat",
        );
        same_bits(
            v.as_slice(),
            &x.slice(0, Some(-1), Some(-5), -2),
            "-1:-5:-2 of B",
        );
    }
    // Too short for the literal bounds: an error naming the dim, the least size and the op.
    for b in [0usize, 1, 3] {
        let t = Tensor::<f32, Shape![_, 6]>::from_shape_vec([b, 6], vec![0.0; b * 6]).unwrap();
        let err = sym(&t).unwrap_err().to_string();
        assert!(
            err.contains("`slice` needs dim `B` to be at least 4")
                && err.contains(&format!("it is {b}")),
            "{err}"
        );
    }
}

#[test]
fn large_reorganisations_split_into_rows() {
    let (a, b) = (nd(&[300000], 12), nd(&[300001], 13));
    let (c, f, p) = big(
        &Tensor::from_vec(a.data.clone()).unwrap(),
        &Tensor::from_vec(b.data.clone()).unwrap(),
    );
    same_bits(
        c.as_slice(),
        &Nd::concat(&[a.clone(), b.clone()], 0),
        "concat",
    );
    same_bits(f.as_slice(), &a.flip(0), "flip");
    let want = b
        .slice(0, Some(1), None, 1)
        .pad(&[(1, 0)], "constant", 0.0)
        .map(|v| v * 2.0);
    same_bits(p.as_slice(), &want, "pad(slice) * 2");
}

/// Every op on every dtype, with the dtype's edge values.
macro_rules! every_dtype {
    ($($t:ident => $f:ident),* $(,)?) => {
        graph! {$(
            fn $f(x: $t[3, 7], y: $t[3, 7]) -> ($t[3, 7], $t[3, 4], $t[5, 10], $t[6, 14], $t[6, 7], $t[3, 7]) {
                (flip(x, axis = 1), slice(x, axis = 1, start = -1, step = -2), pad(x, [1, 1, 1, 2]),
                 tile(y, [2, 2]), concat([x, y], axis = 0), pad(slice(y, axis = 1, start = 2), [0, 0, 2, 0], mode = edge))
            }
        )*}
        #[test]
        fn every_op_on_every_dtype() {$(
            {
                let edges = <$t as TestElem>::edge_values();
                let xs: Vec<$t> = edges.iter().cycle().take(21).cloned().collect();
                let ys: Vec<$t> = <$t as TestElem>::random(21, 77);
                let (x, y) = (Nd::new(&[3, 7], xs.clone()), Nd::new(&[3, 7], ys.clone()));
                let zero: $t = Default::default();
                let (a, b, c, d, e, g) = $f(&Tensor::from_vec(xs).unwrap(), &Tensor::from_vec(ys).unwrap());
                let what = stringify!($t);
                same_bits(a.as_slice(), &x.flip(1), what);
                same_bits(b.as_slice(), &x.slice(1, Some(-1), None, -2), what);
                same_bits(c.as_slice(), &x.pad(&[(1, 1), (1, 2)], "constant", zero), what);
                same_bits(d.as_slice(), &y.tile(&[2, 2]), what);
                same_bits(e.as_slice(), &Nd::concat(&[x.clone(), y.clone()], 0), what);
                same_bits(g.as_slice(), &y.slice(1, Some(2), None, 1).pad(&[(0, 0), (2, 0)], "edge", zero), what);
            }
        )*}
    };
}

every_dtype!(
    u8 => all_u8, u16 => all_u16, u32 => all_u32, u64 => all_u64,
    i8 => all_i8, i16 => all_i16, i32 => all_i32, i64 => all_i64,
    f16 => all_f16, bf16 => all_bf16, f32 => all_f32, f64 => all_f64, bool => all_bool,
);

graph! {
    fn empties(x: f32[0, 3], y: f32[2, 0], z: f32[2, 3]) -> (f32[2, 3], f32[2, 3], f32[0, 3], f32[2, 0], f32[4, 3]) {
        (pad(x, [1, 1, 0, 0], value = 9.0), concat([y, z, y], axis = 1), pad(z, [-2, 0, 0, 0]),
         flip(y, axis = 1), concat([x, z, x, z], axis = 0))
    }
}

#[test]
fn empty_axes_and_parts() {
    let z = nd(&[2, 3], 50);
    let (a, b, c, d, e) = empties(&Tensor::zeros(), &Tensor::zeros(), &t!(z));
    assert!(a.as_slice().iter().all(|&v| v == 9.0));
    same_bits(b.as_slice(), &z, "concat with empty parts");
    assert!(c.as_slice().is_empty() && d.as_slice().is_empty());
    same_bits(
        e.as_slice(),
        &Nd::concat(&[z.clone(), z.clone()], 0),
        "empty rows between",
    );
}
