//! `einsum` against a reference written here that loops over every assignment of the
//! letters (no contraction order, no matmul): products, batches, transposes, dots, outer
//! products, diagonals, traces, sums, several contracted letters, three operands, `...`
//! batch dims with broadcasting, the implicit output, integers, half precision and named
//! dims. Float bound as tests/matmul.rs: (K + 2)·u·Σ|terms| with K the number of terms.

mod common;
use common::*;
use tensorgraph::prelude::*;

/// Σ over every letter assignment of Π operands, for explicit subscripts without `...`.
/// Returns the values and the sums of |terms|.
fn reference(spec: &str, operands: &[(&[usize], Vec<f64>)]) -> (Vec<f64>, Vec<f64>) {
    let (inputs, output) = spec.split_once("->").unwrap();
    let groups: Vec<Vec<char>> = inputs.split(',').map(|g| g.chars().collect()).collect();
    let out: Vec<char> = output.chars().collect();
    let mut letters: Vec<char> = Vec::new();
    let mut size = std::collections::HashMap::new();
    for (g, (dims, _)) in groups.iter().zip(operands) {
        for (c, d) in g.iter().zip(dims.iter()) {
            size.insert(*c, *d);
            if !letters.contains(c) {
                letters.push(*c);
            }
        }
    }
    let out_len: usize = out.iter().map(|c| size[c]).product();
    let (mut vals, mut mags) = (vec![0.0; out_len], vec![0.0; out_len]);
    let total: usize = letters.iter().map(|c| size[c]).product();
    for flat in 0..total {
        let mut rest = flat;
        let mut value = std::collections::HashMap::new();
        for c in letters.iter().rev() {
            value.insert(*c, rest % size[c]);
            rest /= size[c];
        }
        let index = |g: &[char], dims: &[usize]| -> usize {
            g.iter().zip(dims).fold(0, |acc, (c, d)| acc * d + value[c])
        };
        let mut term = 1.0;
        for (g, (dims, data)) in groups.iter().zip(operands) {
            term *= data[index(g, dims)];
        }
        let out_dims: Vec<usize> = out.iter().map(|c| size[c]).collect();
        let at = index(&out, &out_dims);
        vals[at] += term;
        mags[at] += term.abs();
    }
    (vals, mags)
}

fn close(got: &[f32], want: &(Vec<f64>, Vec<f64>), terms: usize, what: &str) {
    assert_eq!(got.len(), want.0.len(), "{what}: length");
    let u = f32::EPSILON as f64 / 2.0;
    for (i, &g) in got.iter().enumerate() {
        let bound = (terms as f64 + 2.0) * u * want.1[i];
        assert!(
            (g as f64 - want.0[i]).abs() <= bound,
            "{what} at {i}: {g} vs {}",
            want.0[i]
        );
    }
}

fn data(n: usize, seed: u64) -> Vec<f32> {
    f32::random(n, seed).iter().map(|v| v % 4.0).collect()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

graph! {
    fn pairs(a: f32[3, 4], b: f32[4, 5], c: f32[5, 4], v: f32[4], w: f32[6])
        -> (f32[3, 5], f32[3, 5], f32[], f32[4, 6], f32[3, 5]) {
        (einsum("ij,jk->ik", a, b), einsum("ij,kj->ik", a, c), einsum("i,i->", v, v),
         einsum("i,j->ij", v, w), einsum("ij,jk", a, b))
    }
    fn singles(s: f32[5, 5], a: f32[3, 4]) -> (f32[5], f32[], f32[4, 3], f32[], f32[3]) {
        (einsum("ii->i", s), einsum("ii->", s), einsum("ij->ji", a), einsum("ij->", a), einsum("ij->i", a))
    }
    fn batches(a: f32[2, 3, 4], b: f32[2, 4, 5], p: f32[2, 1, 3, 4], q: f32[5, 4, 2]) -> (f32[2, 3, 5], f32[2, 5, 3, 2]) {
        (einsum("bij,bjk->bik", a, b), einsum("...ij,...jk->...ik", p, q))
    }
    fn many(x: f32[2, 3, 4], y: f32[3, 4, 5], a: f32[3, 4], b: f32[4, 6], c: f32[6, 2], z: f32[2, 4]) -> (f32[2, 5], f32[3, 2], f32[2, 3]) {
        (einsum("ijk,jkl->il", x, y), einsum("ij,jk,kl->il", a, b, c), einsum("bij,bj->bi", x, exp(z) + 1.0))
    }
    fn attention(q: f32[2, S, 8], k: f32[2, T, 8]) -> f32[2, S, T] { einsum("hsd,htd->hst", q, k) }
    fn kinds(a: i8[3, 4], b: i16[4, 2], c: f16[2, 9], d: f16[9, 3]) -> (i64[3, 2], f16[2, 3]) {
        (einsum("ij,jk->ik", a, b), einsum("ij,jk->ik", c, d))
    }
}

#[test]
fn pairs_of_operands() {
    let (a, b, c, v, w) = (
        data(12, 1),
        data(20, 2),
        data(20, 3),
        data(4, 4),
        data(6, 5),
    );
    let (p, q, r, s, t) = pairs(
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
        &Tensor::from_vec(c.clone()).unwrap(),
        &Tensor::from_vec(v.clone()).unwrap(),
        &Tensor::from_vec(w.clone()).unwrap(),
    );
    let (af, bf, cf, vf, wf) = (f64s(&a), f64s(&b), f64s(&c), f64s(&v), f64s(&w));
    close(
        p.as_slice(),
        &reference("ij,jk->ik", &[(&[3, 4], af.clone()), (&[4, 5], bf.clone())]),
        4,
        "ij,jk->ik",
    );
    close(
        q.as_slice(),
        &reference("ij,kj->ik", &[(&[3, 4], af.clone()), (&[5, 4], cf)]),
        4,
        "ij,kj->ik",
    );
    close(
        r.as_slice(),
        &reference("i,i->", &[(&[4], vf.clone()), (&[4], vf.clone())]),
        4,
        "i,i->",
    );
    close(
        s.as_slice(),
        &reference("i,j->ij", &[(&[4], vf), (&[6], wf)]),
        1,
        "i,j->ij",
    );
    close(
        t.as_slice(),
        &reference("ij,jk->ik", &[(&[3, 4], af), (&[4, 5], bf)]),
        4,
        "implicit output",
    );
}

#[test]
fn single_operands() {
    let (s, a) = (data(25, 6), data(12, 7));
    let (d, tr, t, sum, rows) = singles(
        &Tensor::from_vec(s.clone()).unwrap(),
        &Tensor::from_vec(a.clone()).unwrap(),
    );
    let (sf, af) = (f64s(&s), f64s(&a));
    close(
        d.as_slice(),
        &reference("ii->i", &[(&[5, 5], sf.clone())]),
        1,
        "diagonal",
    );
    close(
        tr.as_slice(),
        &reference("ii->", &[(&[5, 5], sf)]),
        5,
        "trace",
    );
    close(
        t.as_slice(),
        &reference("ij->ji", &[(&[3, 4], af.clone())]),
        1,
        "transpose",
    );
    close(
        sum.as_slice(),
        &reference("ij->", &[(&[3, 4], af.clone())]),
        12,
        "sum",
    );
    close(
        rows.as_slice(),
        &reference("ij->i", &[(&[3, 4], af)]),
        4,
        "row sums",
    );
}

#[test]
fn batch_dims_and_ellipsis() {
    let (a, b, p, q) = (data(24, 8), data(40, 9), data(24, 10), data(40, 11));
    let (x, y) = batches(
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
        &Tensor::from_vec(p.clone()).unwrap(),
        &Tensor::from_vec(q.clone()).unwrap(),
    );
    close(
        x.as_slice(),
        &reference(
            "bij,bjk->bik",
            &[(&[2, 3, 4], f64s(&a)), (&[2, 4, 5], f64s(&b))],
        ),
        4,
        "bij,bjk",
    );
    // `...ij,...jk->...ik` with p: [2, 1, 3, 4] (batch [2, 1]) and q: [5, 4, 2] (batch [5]):
    // batch broadcasts to [2, 5]; i = 3, j = 4, k = 2. Expand p over the 5 by hand.
    let mut pe = Vec::new();
    for h in 0..2 {
        for _ in 0..5 {
            pe.extend_from_slice(&f64s(&p[h * 12..(h + 1) * 12]));
        }
    }
    let want = reference(
        "xgij,gjk->xgik",
        &[(&[2, 5, 3, 4], pe), (&[5, 4, 2], f64s(&q))],
    );
    close(y.as_slice(), &want, 4, "...ij,...jk");
}

#[test]
fn several_contracted_letters_and_three_operands() {
    let (x, y, a, b, c) = (
        data(24, 12),
        data(60, 13),
        data(12, 14),
        data(24, 15),
        data(12, 16),
    );
    let z: Vec<f32> = data(8, 23).iter().map(|v| v / 4.0).collect();
    let (p, q, r) = many(
        &Tensor::from_vec(x.clone()).unwrap(),
        &Tensor::from_vec(y.clone()).unwrap(),
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
        &Tensor::from_vec(c.clone()).unwrap(),
        &Tensor::from_vec(z.clone()).unwrap(),
    );
    close(
        p.as_slice(),
        &reference(
            "ijk,jkl->il",
            &[(&[2, 3, 4], f64s(&x)), (&[3, 4, 5], f64s(&y))],
        ),
        12,
        "ijk,jkl",
    );
    // Three operands: any contraction order is within (terms + 2)·u·Σ|terms| of the exact.
    close(
        q.as_slice(),
        &reference(
            "ij,jk,kl->il",
            &[
                (&[3, 4], f64s(&a)),
                (&[4, 6], f64s(&b)),
                (&[6, 2], f64s(&c)),
            ],
        ),
        24,
        "ij,jk,kl",
    );
    // bij,bj->bi with a computed second operand (materialised for the product).
    let zf: Vec<f64> = z.iter().map(|&v| (v.exp() + 1.0) as f64).collect();
    let want = reference("bij,bj->bi", &[(&[2, 3, 4], f64s(&x)), (&[2, 4], zf)]);
    // exp in f32 is within 1 ulp: allow 2 more u per term.
    close(
        r.as_slice(),
        &(want.0, want.1.iter().map(|m| m * 2.0).collect()),
        4,
        "bij,bj->bi",
    );
}

#[test]
fn named_dims() {
    for (s, t) in [(1usize, 3usize), (4, 4), (7, 2)] {
        let (q, k) = (data(2 * s * 8, 17), data(2 * t * 8, 18));
        let qt = Tensor::<f32, Shape![2, _, 8]>::from_shape_vec([2, s, 8], q.clone()).unwrap();
        let kt = Tensor::<f32, Shape![2, _, 8]>::from_shape_vec([2, t, 8], k.clone()).unwrap();
        let got = attention(&qt, &kt).unwrap();
        assert_eq!(got.shape(), &[2, s, t]);
        let mut qs = vec![0usize; 0];
        qs.push(s);
        let want = reference(
            "hsd,htd->hst",
            &[(&[2, s, 8], f64s(&q)), (&[2, t, 8], f64s(&k))],
        );
        close(got.as_slice(), &want, 8, "hsd,htd->hst");
    }
}

#[test]
fn integer_and_half_operands() {
    let a: Vec<i8> = i8::random(12, 19);
    let b: Vec<i16> = i16::random(8, 20);
    let c: Vec<f16> = data(18, 21).iter().map(|&v| f16::from_f32(v)).collect();
    let d: Vec<f16> = data(27, 22).iter().map(|&v| f16::from_f32(v)).collect();
    let (x, y) = kinds(
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
        &Tensor::from_vec(c.clone()).unwrap(),
        &Tensor::from_vec(d.clone()).unwrap(),
    );
    for i in 0..3 {
        for k in 0..2 {
            let want: i64 = (0..4)
                .map(|j| a[i * 4 + j] as i64 * b[j * 2 + k] as i64)
                .sum();
            assert_eq!(x[[i, k]], want);
        }
    }
    let (cf, df): (Vec<f64>, Vec<f64>) = (
        c.iter().map(|v| v.to_f64()).collect(),
        d.iter().map(|v| v.to_f64()).collect(),
    );
    let (want, mag) = reference("ij,jk->ik", &[(&[2, 9], cf), (&[9, 3], df)]);
    for i in 0..6 {
        let bound = 11.0 * (f32::EPSILON as f64 / 2.0) * mag[i]
            + want[i].abs() * 2f64.powi(-11)
            + 2f64.powi(-25);
        assert!(
            (y.as_slice()[i].to_f64() - want[i]).abs() <= bound,
            "f16 at {i}"
        );
    }
}

// Found by the random-graph generator (issue 18): an operand whose lone letter is summed
// first, with a dtype other than the promoted one. The sum was taken in the operand's own
// accumulator (`i8` → `i64`, `u16` → `u64`), which then did not promote with the other
// operand (`f32`, `i32`): the checker gave up without an error and the graph returned
// zeros. Operands now convert to the promoted dtype first, as `matmul`'s do.
graph! {
    fn lone_sum_of_an_integer_operand(x: f32[3], w: i8[3, 2]) -> f32[3] { einsum("q,qp->q", x, w) }
    fn lone_sum_of_a_narrower_integer(a: u16[2, 3], b: i32[3]) -> i64[] { einsum("ij,j->", a, b) }
}

#[test]
fn lone_sums_of_operands_of_another_dtype() {
    let x = Tensor::from_vec(vec![1.5f32, -2.0, 0.25]).unwrap();
    let w = Tensor::from_vec(vec![1i8, 2, -3, 4, 100, 27]).unwrap();
    let y = lone_sum_of_an_integer_operand(&x, &w);
    // x[q]·(w[q, 0] + w[q, 1]), every value exact in f32.
    assert_eq!(y.as_slice(), &[4.5f32, -2.0, 31.75]);
    let a = Tensor::from_vec(vec![1u16, 2, 3, 65535, 5, 6]).unwrap();
    let b = Tensor::from_vec(vec![-1i32, 7, i32::MIN]).unwrap();
    let want = (0..2)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .fold(0i64, |s, (i, j)| {
            s.wrapping_add(a.as_slice()[i * 3 + j] as i64 * b.as_slice()[j] as i64)
        });
    assert_eq!(lone_sum_of_a_narrower_integer(&a, &b)[[]], want);
}

// Found by the random-graph generator (issue 18): a product whose left operand keeps a
// letter (`i`) while the right one keeps two (`q`, `j`). The matmul's axes are
// `[q, i, j]` but were labelled `[i, q, j]`: with `i` and `q` of one size the result
// was silently transposed, with different sizes the declared type did not match.
graph! {
    fn kept_letters_on_both_sides(a: f32[3, 4], b: f32[3, 4, 2]) -> f32[3, 3, 2] { einsum("ip,qpj->iqj", a, b) }
    fn kept_letters_of_other_sizes(a: f32[5, 4], b: f32[3, 4, 2]) -> f32[5, 3, 2] { einsum("ip,qpj->iqj", a, b) }
}

#[test]
fn letters_kept_from_both_operands_keep_their_order() {
    let (a, b, c) = (data(12, 21), data(24, 22), data(20, 23));
    let got = kept_letters_on_both_sides(
        &Tensor::from_vec(a.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
    );
    close(
        got.as_slice(),
        &reference(
            "ip,qpj->iqj",
            &[(&[3, 4], f64s(&a)), (&[3, 4, 2], f64s(&b))],
        ),
        4,
        "ip,qpj->iqj",
    );
    let got = kept_letters_of_other_sizes(
        &Tensor::from_vec(c.clone()).unwrap(),
        &Tensor::from_vec(b.clone()).unwrap(),
    );
    close(
        got.as_slice(),
        &reference(
            "ip,qpj->iqj",
            &[(&[5, 4], f64s(&c)), (&[3, 4, 2], f64s(&b))],
        ),
        4,
        "ip,qpj->iqj, i and q of other sizes",
    );
}

// Found by the random-graph generator (issue 18): the diagonal of two named axes walks a
// stride of two terms (`S + 1`), which the emitter assumed was one and panicked on; flipped,
// `-S - 1`; across a flipped and an unflipped axis, `1 - S` (negative unless S = 1).
graph! {
    fn named_diagonals(x: f32[S, S]) -> (f32[S], f32[S], f32[S], f32[]) {
        (einsum("ii->i", x) * 2.0, flip(einsum("ii->i", x), axis = 0) + 1.0,
         einsum("ii->i", flip(x, axis = 0)) - 1.0, einsum("ii", x))
    }
}

#[test]
fn diagonals_of_named_axes() {
    for s in [1usize, 2, 3, 9, 17] {
        let v: Vec<f32> = (0..s * s).map(|i| i as f32 * 0.5 - 3.0).collect();
        let x = TensorView::<f32, Shape![_, _]>::with_dims([s, s], &v).unwrap();
        let (d, f, a, t) = named_diagonals(&x).unwrap();
        let at = |i: usize, j: usize| v[i * s + j];
        let want_d: Vec<f32> = (0..s).map(|i| at(i, i) * 2.0).collect();
        let want_f: Vec<f32> = (0..s).map(|i| at(s - 1 - i, s - 1 - i) + 1.0).collect();
        let want_a: Vec<f32> = (0..s).map(|i| at(s - 1 - i, i) - 1.0).collect();
        assert_eq!(d.as_slice(), &want_d[..], "S = {s}");
        assert_eq!(f.as_slice(), &want_f[..], "S = {s}");
        assert_eq!(a.as_slice(), &want_a[..], "S = {s}");
        // The trace's terms are multiples of 0.5 below 2^10: exact in any order.
        let want_t: f32 = (0..s).map(|i| at(i, i)).sum();
        assert_eq!(t[[]], want_t, "S = {s}");
    }
}
