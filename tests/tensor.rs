//! The runtime tensor API: checked constructors, indexing, views, `Debug`.

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
