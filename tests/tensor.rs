//! The runtime tensor API: checked constructors, indexing, views, rank-0 elements, rows and
//! axis iteration, `Display`/`Debug` and their format options, `ShapeError`'s `Debug`.

use tensorgraph::prelude::*;
use tensorgraph::ShapeError;

#[test]
fn from_vec_checks_the_length() {
    let err = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0; 5]).unwrap_err();
    assert_eq!(
        err,
        ShapeError::Length {
            expected: 6,
            found: 5,
            dims: "[2, 3]".to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        "a tensor of shape [2, 3] needs 6 elements, but 5 were given"
    );
    assert!(Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0; 6]).is_ok());
    let data = [1u8, 2, 3];
    assert!(TensorView::<u8, Shape![4]>::new(&data).is_err());
    assert!(TensorView::<u8, Shape![3]>::new(&data).is_ok());
}

#[test]
fn from_fn_indexing_and_shape() {
    let t = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (100 * i + 10 * j + k) as i32);
    assert_eq!(t.shape(), &[2, 3, 4]);
    assert_eq!(t[[1, 2, 3]], 123);
    assert_eq!(t[[0, 1, 0]], 10);
    assert_eq!(t.as_slice()[4 * 3 + 1], 101);
    assert_eq!(t.get([2, 0, 0]), None);
    assert_eq!(t.get([1, 0, 3]), Some(&103));
    let mut t = t;
    t[[0, 0, 0]] = -1;
    assert_eq!(t.as_slice()[0], -1);
    let r6 = Tensor::<u8, Shape![1, 2, 1, 2, 1, 2]>::from_fn(|i| i.iter().sum::<usize>() as u8);
    assert_eq!(r6[[0, 1, 0, 1, 0, 1]], 3);
    let r0 = Tensor::<f64, Shape![]>::from_fn(|[]| 2.5);
    assert_eq!(r0[[]], 2.5);
}

#[test]
#[should_panic(expected = "out of range for shape [2, 3]")]
fn indexing_out_of_range_panics_like_a_slice() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let _ = t[[0, 3]];
}

#[test]
fn debug_is_numpy_like() {
    let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1.0, 2.0, 3.0, 4.5]).unwrap();
    assert_eq!(
        format!("{t:?}"),
        "tensor([[1.0, 2.0],\n        [3.0, 4.5]], dtype=f32)"
    );
    let b = Tensor::<bool, Shape![3]>::from_vec(vec![true, false, true]).unwrap();
    assert_eq!(format!("{b:?}"), "tensor([true, false, true], dtype=bool)");
    let s = Tensor::<i64, Shape![]>::from_vec(vec![7]).unwrap();
    assert_eq!(format!("{s:?}"), "tensor(7, dtype=i64)");
    let e = Tensor::<f16, Shape![0, 3]>::zeros();
    assert_eq!(format!("{e:?}"), "tensor([], shape=[0, 3], dtype=f16)");
    let big = Tensor::<u16, Shape![2000]>::from_fn(|[i]| i as u16);
    assert_eq!(
        format!("{big:?}"),
        "tensor([0, 1, 2, ..., 1997, 1998, 1999], dtype=u16)"
    );
    let cube = Tensor::<u8, Shape![2, 1, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
    assert_eq!(
        format!("{cube:?}"),
        "tensor([[[1, 2]],\n\n        [[3, 4]]], dtype=u8)"
    );
}

#[test]
fn iteration_display_map_and_try_from() {
    let t = Tensor::<i32, Shape![_, 2]>::try_from(vec![1, 2, 3, 4]).unwrap();
    assert_eq!(t.iter().copied().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!((&t).into_iter().count(), 4);
    let doubled: Vec<i32> = t.view().into_iter().map(|v| v * 2).collect();
    assert_eq!(doubled, vec![2, 4, 6, 8]);
    let mut m = t.clone();
    for v in &mut m {
        *v = -*v;
    }
    assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![-1, -2, -3, -4]);
    assert_eq!(t.to_string(), "[[1, 2],\n [3, 4]]");
    assert_eq!(t.view().to_string(), t.to_string());
    let f = t.map(|v| v as f64 / 2.0);
    assert_eq!(f.shape(), &[2, 2]);
    assert_eq!(f.as_slice(), &[0.5, 1.0, 1.5, 2.0]);
    assert_eq!(Tensor::<f32, Shape![]>::full(2.5).to_string(), "2.5");
    assert_eq!(
        Tensor::<f32, Shape![_]>::from_vec(vec![])
            .unwrap()
            .to_string(),
        "[]"
    );
    assert!(Tensor::<u8, Shape![3]>::try_from(vec![1u8, 2]).is_err());
}

graph! {
    /// How many values are positive: a rank-0 `i64`.
    fn count_positive(x: f32[N]) -> i64[] { sum(x > 0.0) }
}

graph! {
    fn scaled_rows(x: f32[B, 3], s: f32) -> f32[B, 3] { x * s }
}

#[test]
fn rank_0_tensors_give_their_element() {
    let c = count_positive(&vec![1.0f32, -2.0, 3.0, 0.0, 0.5, -0.25]).unwrap();
    assert_eq!(c.shape(), &[] as &[usize]);
    assert_eq!(c.item(), 3);
    assert_eq!(c[[]], 3);
    assert_eq!(c.view().item(), 3);
    let n: i64 = c.clone().into();
    assert_eq!(n, 3);
    assert_eq!(i64::from(c), 3);
    let mut t = Tensor::<f64, Shape![]>::full(-1.5);
    assert_eq!(t.item(), -1.5);
    t[[]] = 4.25;
    assert_eq!(t.view_mut().item(), 4.25);
    assert_eq!(f64::from(t), 4.25);
    // One `From` per dtype, half-precision and `bool` included.
    let h = Tensor::<f16, Shape![]>::full(f16::from_f32(0.5));
    assert_eq!(f16::from(h), f16::from_f32(0.5));
    let b = Tensor::<bf16, Shape![]>::full(bf16::from_f32(-2.0));
    assert_eq!(bf16::from(b).to_f32(), -2.0);
    assert!(bool::from(Tensor::<bool, Shape![]>::full(true)));
    assert_eq!(u8::from(Tensor::<u8, Shape![]>::full(200)), 200);
    let mut data = [7u16];
    let v = TensorViewMut::<u16, Shape![]>::new(&mut data).unwrap();
    assert_eq!(v.item(), 7);
    assert_eq!(TensorView::<i8, Shape![]>::new(&[-3]).unwrap().item(), -3);
}

#[test]
fn display_and_debug_apply_the_format_options_to_each_element() {
    let x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1.0, -2.5, 1.0 / 3.0, 100.0]).unwrap();
    // No options: unchanged (each element as its `Debug`).
    assert_eq!(x.to_string(), "[[1.0, -2.5],\n [0.33333334, 100.0]]");
    assert_eq!(format!("{x:.3}"), "[[1.000, -2.500],\n [0.333, 100.000]]");
    assert_eq!(
        format!("{x:8.2}"),
        "[[    1.00,    -2.50],\n [    0.33,   100.00]]"
    );
    assert_eq!(
        format!("{x:<7.1}|"),
        "[[1.0    , -2.5   ],\n [0.3    , 100.0  ]]|"
    );
    assert_eq!(format!("{x:+.0}"), "[[+1, -2],\n [+0, +100]]");
    assert_eq!(
        format!("{x:08.2}"),
        "[[00001.00, -0002.50],\n [00000.33, 00100.00]]"
    );
    assert_eq!(
        format!("{x:.1?}"),
        "tensor([[1.0, -2.5],\n        [0.3, 100.0]], dtype=f32)"
    );
    assert_eq!(format!("{:.2}", x.view()), format!("{x:.2}"));
    let mut buffer = x.clone().into_vec();
    let m = TensorViewMut::<f32, Shape![2, 2]>::new(&mut buffer).unwrap();
    assert_eq!(format!("{m:.2}"), format!("{x:.2}"));
    // Every dtype: f64, f16, integers (a precision does nothing to an integer), bool (nor
    // to a bool: it is not cut to its first letters).
    let d = Tensor::<f64, Shape![3]>::from_vec(vec![0.125, 2.0, -1e-3]).unwrap();
    assert_eq!(format!("{d:.2}"), "[0.12, 2.00, -0.00]");
    let h =
        Tensor::<f16, Shape![2]>::from_vec(vec![f16::from_f32(0.5), f16::from_f32(3.0)]).unwrap();
    assert_eq!(format!("{h:.1}"), "[0.5, 3.0]");
    let i = Tensor::<i32, Shape![3]>::from_vec(vec![1, -20, 300]).unwrap();
    assert_eq!(format!("{i:4}"), "[   1,  -20,  300]");
    assert_eq!(format!("{i:.2}"), "[1, -20, 300]");
    let b = Tensor::<bool, Shape![2]>::from_vec(vec![true, false]).unwrap();
    assert_eq!(format!("{b:.1}"), "[true, false]");
    assert_eq!(format!("{b:>6.1}"), "[  true,  false]");
    assert_eq!(format!("{b:^7}"), "[ true  ,  false ]");
    assert_eq!(format!("{b:*<6.2}"), "[true**, false*]");
    // Rank 0, empty, summarised.
    assert_eq!(
        format!("{:.3}", Tensor::<f32, Shape![]>::full(2.5)),
        "2.500"
    );
    assert_eq!(format!("{:.3}", Tensor::<f32, Shape![0, 3]>::zeros()), "[]");
    let big = Tensor::<f32, Shape![2000]>::from_fn(|[k]| k as f32 / 4.0);
    assert_eq!(
        format!("{big:.1}"),
        "[0.0, 0.2, 0.5, ..., 499.2, 499.5, 499.8]"
    );
}

#[test]
fn rows_are_the_slices_along_the_first_axis() {
    let m = Tensor::<i32, Shape![_, 3]>::from_vec((1..=6).collect()).unwrap();
    let rows: Vec<&[i32]> = m.rows().collect();
    assert_eq!(rows, vec![&[1, 2, 3][..], &[4, 5, 6][..]]);
    assert_eq!(m.rows().len(), 2);
    assert_eq!(m.rows().next_back(), Some(&[4, 5, 6][..]));
    assert_eq!(m.view().rows().collect::<Vec<_>>(), rows);
    // Rank 1: each element alone; rank 3: each `[3, 4]` block, flattened.
    let v = Tensor::<u8, Shape![3]>::from_vec(vec![7, 8, 9]).unwrap();
    assert_eq!(v.rows().collect::<Vec<_>>(), vec![&[7][..], &[8], &[9]]);
    let t = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (100 * i + 10 * j + k) as i32);
    let blocks: Vec<&[i32]> = t.rows().collect();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[1].len(), 12);
    assert_eq!(blocks[1][..5], [100, 101, 102, 103, 110]);
    assert_eq!(blocks[0][11], 23);
    // Empty axes: none of `[0, 3]`, three empty rows of `[3, 0]`.
    let e = Tensor::<f32, Shape![_, 3]>::from_vec(vec![]).unwrap();
    assert_eq!(e.rows().count(), 0);
    let z = Tensor::<f32, Shape![3, 0]>::zeros();
    assert_eq!(
        z.rows().map(<[f32]>::len).collect::<Vec<_>>(),
        vec![0, 0, 0]
    );
    // The rows of a graph output, and of a writable view.
    let y = scaled_rows(m.map(|v| v as f32).view(), 0.5).unwrap();
    let sums: Vec<f32> = y.rows().map(|row| row.iter().sum()).collect();
    assert_eq!(sums, vec![3.0, 7.5]);
    let mut data = [1u8, 2, 3, 4];
    let w = TensorViewMut::<u8, Shape![2, 2]>::new(&mut data).unwrap();
    assert_eq!(w.rows().nth(1), Some(&[3, 4][..]));
}

#[test]
fn axis_iter_yields_the_sub_tensors_along_any_axis() {
    let value = |i: usize, j: usize, k: usize| (100 * i + 10 * j + k) as i32;
    let t = Tensor::<i32, Shape![2, _, 4]>::from_shape_fn([2, 3, 4], |[i, j, k]| value(i, j, k))
        .unwrap();
    for axis in 0..3 {
        let views: Vec<_> = t.axis_iter(axis).collect();
        assert_eq!(views.len(), t.shape()[axis]);
        assert_eq!(t.axis_iter(axis).len(), t.shape()[axis]);
        for (at, view) in views.iter().enumerate() {
            // The expected elements, in row-major order of the two other axes.
            let mut expected = Vec::new();
            for i in 0..2 {
                for j in 0..3 {
                    for k in 0..4 {
                        if [i, j, k][axis] == at {
                            expected.push(value(i, j, k));
                        }
                    }
                }
            }
            assert_eq!(view.to_vec(), expected, "axis {axis}, index {at}");
            assert_eq!(view.len(), 24 / t.shape()[axis]);
            assert!(!view.is_empty());
            assert_eq!(view.iter().rev().copied().collect::<Vec<_>>(), {
                let mut r = expected.clone();
                r.reverse();
                r
            });
            for (n, &e) in expected.iter().enumerate() {
                assert_eq!(view[n], e);
                assert_eq!(view.get(n), Some(&e));
            }
            assert_eq!(view.get(expected.len()), None);
            // Contiguous along axis 0 only (no axis before it has extent 1 here).
            assert_eq!(view.as_slice(), (axis == 0).then_some(&expected[..]));
        }
    }
    let m = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).unwrap();
    let columns: Vec<Vec<i32>> = m.axis_iter(1).map(|c| c.to_vec()).collect();
    assert_eq!(columns, vec![vec![1, 4], vec![2, 5], vec![3, 6]]);
    assert_eq!(format!("{:?}", m.axis_iter(1).next().unwrap()), "[1, 4]");
    assert_eq!(
        m.axis_iter(0).next().unwrap(),
        m.view().axis_iter(0).next().unwrap()
    );
    assert_ne!(m.axis_iter(1).next(), m.axis_iter(1).nth(1));
    // A leading axis of extent 1 leaves the views along the next one contiguous.
    let one = Tensor::<u8, Shape![1, 2, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
    assert_eq!(
        one.axis_iter(1).nth(1).unwrap().as_slice(),
        Some(&[3, 4][..])
    );
    // Empty: an axis of extent 0 yields nothing, another one empty views.
    let z = Tensor::<f32, Shape![_, 3]>::from_vec(vec![]).unwrap();
    assert_eq!(z.axis_iter(0).count(), 0);
    let empties: Vec<_> = z.axis_iter(1).collect();
    assert_eq!(empties.len(), 3);
    assert!(empties
        .iter()
        .all(|c| c.is_empty() && c.iter().next().is_none()));
    assert_eq!(empties[2].as_slice(), Some(&[][..]));
    assert_eq!(empties[2].get(0), None);
    let mut data = [1.0f64, 2.0, 3.0, 4.0];
    let w = TensorViewMut::<f64, Shape![2, 2]>::new(&mut data).unwrap();
    assert_eq!(w.axis_iter(1).nth(1).unwrap().to_vec(), vec![2.0, 4.0]);
}

#[test]
#[should_panic(expected = "axis 2 is out of range for a tensor of rank 2 (shape [2, 3])")]
fn axis_iter_past_the_rank_panics() {
    let m = Tensor::<i32, Shape![2, 3]>::zeros();
    let _ = m.axis_iter(2);
}

#[test]
#[should_panic(expected = "index 2 is out of range for an axis view of 2 elements")]
fn axis_view_index_out_of_range_panics() {
    let m = Tensor::<i32, Shape![2, 3]>::zeros();
    let column = m.axis_iter(1).next().unwrap();
    let _ = column[2];
}

#[test]
fn constructors_for_run_time_dims() {
    let z = Tensor::<f32, Shape![_, 64]>::zeros_with_dims([3, 64]).unwrap();
    assert_eq!(z.shape(), &[3, 64]);
    assert!(z.iter().all(|&v| v == 0.0));
    let f = Tensor::<i16, Shape![_, 2]>::full_with_dims([3, 2], -7).unwrap();
    assert_eq!(f.as_slice(), &[-7; 6]);
    assert_eq!(
        f,
        Tensor::<i16, Shape![_, 2]>::from_vec(vec![-7; 6]).unwrap()
    );
    let err = Tensor::<i16, Shape![_, 2]>::full_with_dims([3, 4], 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dims [3, 4] do not fit shape [_, 2]: axis 1 is 2 in the type, but 4 was given"
    );
    let err = Tensor::<u64, Shape![_]>::full_with_dims([usize::MAX / 4], 1).unwrap_err();
    assert_eq!(
        err,
        ShapeError::TooLarge {
            dims: format!("[{}]", usize::MAX / 4)
        }
    );
    // A static shape takes them too, and they must be its own.
    let s = Tensor::<u8, Shape![2]>::full_with_dims([2], 9).unwrap();
    assert_eq!(s, Tensor::<u8, Shape![2]>::full(9));
    assert!(Tensor::<u8, Shape![2]>::full_with_dims([3], 9).is_err());
}

#[test]
fn shape_error_debug_is_its_display_text() {
    let err = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1.0; 5]).unwrap_err();
    assert_eq!(
        format!("{err:?}"),
        "a tensor of shape [2, 3] needs 6 elements, but 5 were given"
    );
    // A graph call's error, as `main` returning it through `?` prints it (`Error: {err:?}`).
    let err = scaled_rows(&vec![1.0f32; 10], 2.0).unwrap_err();
    let text = "graph `scaled_rows`: `x` is a slice of 10 elements, which does not fill \
                f32[B, 3] (10 is not a multiple of 3); signature scaled_rows(x: f32[B, 3], s: f32) -> f32[B, 3]";
    assert_eq!(err.to_string(), text);
    assert_eq!(format!("{err:?}"), text);
    assert_eq!(
        format!("{:?}", Err::<(), _>(err.clone())),
        format!("Err({text})")
    );
    assert_eq!(format!("{err:#?}"), text);
    assert!(matches!(err, ShapeError::SliceLength { len: 10, .. }));
}
