//! Broadcast patterns, rank 0, size 0, several outputs, `_into`, views: the generated
//! loop nests against index arithmetic done here, bit for bit.

mod common;
use common::*;
use tensorgraph::prelude::*;

graph! {
    /// Every pattern at once: `[3,1,5]` stretches axis 1, `[4,1]` is right-aligned and
    /// stretches axes 0 and 2, `[5]` is a row, `d` is rank 0, `s` a run-time scalar.
    pub fn mixed(a: f32[3, 1, 5], b: f32[4, 1], c: f32[5], d: f32[], s: f32) -> (f32[3, 4, 5], f32[5]) {
        let t = (a + b) * c;
        (t - d / s, c * 2.0 + d)
    }

    fn rank0_with_rank3(x: i32[], y: i32[2, 3, 4]) -> i32[2, 3, 4] {
        y * x - x
    }

    fn row_over_matrix(row: f64[7], m: f64[5, 7]) -> f64[5, 7] {
        m / row
    }

    fn outer(col: u16[9, 1], row: u16[1, 11]) -> (u16[9, 11], bool[9, 11]) {
        (col * row + 3, col < row)
    }

    fn rank0_output(x: f32[], y: f32[]) -> f32[] {
        x * y + 1.0
    }

    fn empty(a: f32[0], b: f32[1]) -> f32[0] {
        a + b
    }

    fn empty_rows(a: f32[4, 0], b: f32[0]) -> f32[4, 0] {
        a * b
    }

    fn half_rows(x: f16[3, 17], g: f16[17], b: bf16[1]) -> f32[3, 17] {
        (x * g) as f32 + b as f32
    }
}

fn random_f32<S: tensorgraph::StaticShape>(seed: u64) -> Tensor<f32, S> {
    Tensor::from_vec(f32::random(S::LEN, seed)).unwrap()
}

#[test]
fn every_pattern_in_one_graph() {
    let a = random_f32::<Shape![3, 1, 5]>(1);
    let b = random_f32::<Shape![4, 1]>(2);
    let c = random_f32::<Shape![5]>(3);
    let d = random_f32::<Shape![]>(4);
    let s = 0.37f32;
    let (y, z) = mixed(&a, &b, &c, &d, s);
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                let t = (a[[i, 0, k]] + b[[j, 0]]) * c[[k]];
                let expected = t - d[[]] / s;
                assert_eq!(y[[i, j, k]].to_bits(), expected.to_bits(), "at {i},{j},{k}");
            }
        }
    }
    for k in 0..5 {
        assert_eq!(z[[k]].to_bits(), (c[[k]] * 2.0 + d[[]]).to_bits());
    }

    // `_into` writes the same values into caller-provided outputs, including mutable views.
    let mut y2 = Tensor::<f32, Shape![3, 4, 5]>::zeros();
    let mut z_buf = [0.0f32; 5];
    let mut z2 = TensorViewMut::<f32, Shape![5]>::new(&mut z_buf).unwrap();
    mixed_into(&a, &b, &c, &d, s, &mut y2, &mut z2);
    assert_eq!(y2, y);
    assert_eq!(z_buf, z.as_slice());

    // Borrowed views are inputs with no copy.
    let a_data = a.as_slice().to_vec();
    let a_view = TensorView::<f32, Shape![3, 1, 5]>::new(&a_data).unwrap();
    let (y3, _) = mixed(&a_view, &b, &c, &d, s);
    assert_eq!(y3, y);
}

#[test]
fn rank0_broadcasts_over_rank3() {
    let x = Tensor::<i32, Shape![]>::from_vec(vec![-7]).unwrap();
    let y = Tensor::<i32, Shape![2, 3, 4]>::from_vec(i32::random(24, 9)).unwrap();
    let got = rank0_with_rank3(&x, &y);
    for (g, &v) in got.as_slice().iter().zip(y.as_slice()) {
        assert_eq!(*g, v.wrapping_mul(-7).wrapping_sub(-7));
    }
}

#[test]
fn row_divides_every_row() {
    let row = Tensor::<f64, Shape![7]>::from_vec(f64::edge_values()[..7].to_vec()).unwrap();
    let m = Tensor::<f64, Shape![5, 7]>::from_vec(f64::random(35, 4)).unwrap();
    let got = row_over_matrix(&row, &m);
    for i in 0..5 {
        for j in 0..7 {
            assert!(f64::same(got[[i, j]], m[[i, j]] / row[[j]]), "{i},{j}");
        }
    }
}

#[test]
fn column_times_row() {
    let col = Tensor::<u16, Shape![9, 1]>::from_vec(u16::edge_values()[..9].to_vec()).unwrap();
    let row = Tensor::<u16, Shape![1, 11]>::from_vec(u16::random(11, 3)).unwrap();
    let (prod, less) = outer(&col, &row);
    for i in 0..9 {
        for j in 0..11 {
            assert_eq!(
                prod[[i, j]],
                col[[i, 0]].wrapping_mul(row[[0, j]]).wrapping_add(3)
            );
            assert_eq!(less[[i, j]], col[[i, 0]] < row[[0, j]]);
        }
    }
}

#[test]
fn rank0_and_empty_tensors() {
    let x = Tensor::<f32, Shape![]>::from_vec(vec![3.0]).unwrap();
    let y = Tensor::<f32, Shape![]>::from_vec(vec![0.5]).unwrap();
    assert_eq!(rank0_output(&x, &y)[[]], 2.5);

    let a = Tensor::<f32, Shape![0]>::from_vec(vec![]).unwrap();
    let b = Tensor::<f32, Shape![1]>::from_vec(vec![1.0]).unwrap();
    assert!(empty(&a, &b).as_slice().is_empty());
    let a = Tensor::<f32, Shape![4, 0]>::zeros();
    let b = Tensor::<f32, Shape![0]>::zeros();
    assert!(empty_rows(&a, &b).as_slice().is_empty());
}

#[test]
fn half_precision_rows() {
    let x = Tensor::<f16, Shape![3, 17]>::from_vec(f16::random(51, 1)).unwrap();
    let g = Tensor::<f16, Shape![17]>::from_vec(f16::random(17, 2)).unwrap();
    let b = Tensor::<bf16, Shape![1]>::from_vec(vec![bf16::from_f32(0.75)]).unwrap();
    let got = half_rows(&x, &g, &b);
    for i in 0..3 {
        for j in 0..17 {
            // The f16 product is rounded to f16 when it is cast (it leaves its dtype).
            let product = f16::from_f32(x[[i, j]].to_f32() * g[[j]].to_f32()).to_f32();
            assert_eq!(
                got[[i, j]].to_bits(),
                (product + 0.75f32).to_bits(),
                "{i},{j}"
            );
        }
    }
}
