//! The safetensors module against the safetensors crate's own reader and writer and against
//! hand-made files: every dtype round trip, sizes 0, 1 and odd, and every error path. The
//! in-memory tests run under Miri (`from_bytes`); the file tests map real files.

use super::*;
use crate::dtype::{bf16, f16};
use crate::shape::{Dyn, Fixed, Rank0, Rank1, Rank2, Rank3};
use ::safetensors::tensor::TensorView as SfView;

/// A file made by hand: the header as written (no padding unless given), then `data`.
fn raw_file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn le_bytes_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A file written by the safetensors crate itself from little-endian bytes.
fn crate_file(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let views: Vec<(&str, SfView<'_>)> = tensors
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            (
                *name,
                SfView::new(*dtype, shape.clone(), bytes).expect("consistent view"),
            )
        })
        .collect();
    ::safetensors::serialize(views, None).expect("the crate serialises")
}

#[test]
fn reads_what_the_safetensors_crate_writes() {
    let w: Vec<f32> = vec![1.5, -2.0, 0.25, 3.0, -0.0, 1e30];
    let b: Vec<i64> = vec![i64::MIN, -1, 0, 7, i64::MAX];
    let h: Vec<f16> = [1.0f32, -2.5, 65504.0].map(f16::from_f32).to_vec();
    let m: Vec<bool> = vec![true, false, true];
    let bytes = crate_file(&[
        ("w", Dtype::F32, vec![2, 3], le_bytes_f32(&w)),
        (
            "b",
            Dtype::I64,
            vec![5],
            b.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ),
        (
            "h",
            Dtype::F16,
            vec![3, 1],
            h.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ),
        (
            "m",
            Dtype::BOOL,
            vec![3],
            m.iter().map(|&v| u8::from(v)).collect(),
        ),
    ]);
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    let mut names = file.names();
    names.sort();
    assert_eq!(names, ["b", "h", "m", "w"]);
    assert_eq!(file.stored_type("w").as_deref(), Some("f32[2, 3]"));
    assert_eq!(file.dims("h"), Some(&[3usize, 1][..]));

    let view = file.tensor::<f32, Rank2<Fixed<2>, Fixed<3>>>("w").unwrap();
    assert_eq!(view.as_slice(), &w[..]);
    assert_eq!(view[[1, 2]], 1e30);
    let view = file.tensor::<f32, Rank2<Dyn, Fixed<3>>>("w").unwrap();
    assert_eq!(view.shape(), &[2, 3]);
    assert_eq!(
        file.tensor::<i64, Rank1<Dyn>>("b").unwrap().as_slice(),
        &b[..]
    );
    assert_eq!(
        file.tensor::<f16, Rank2<Fixed<3>, Dyn>>("h")
            .unwrap()
            .as_slice(),
        &h[..]
    );
    assert_eq!(
        file.tensor::<bool, Rank1<Fixed<3>>>("m")
            .unwrap()
            .as_slice(),
        &m[..]
    );
    let stored = file.get::<f32>("w").unwrap();
    assert_eq!(
        (stored.as_slice(), stored.shape()),
        (&w[..], &[2usize, 3][..])
    );
    let loaded = file.load::<f32, Rank2<Dyn, Dyn>>("w").unwrap();
    assert_eq!(loaded.as_slice(), &w[..]);
    assert_eq!(loaded.shape(), &[2, 3]);
}

/// A view is the file's own bytes: no copy.
#[test]
fn views_borrow_the_file() {
    let bytes = crate_file(&[(
        "w",
        Dtype::F32,
        vec![4],
        le_bytes_f32(&[1.0, 2.0, 3.0, 4.0]),
    )]);
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    let storage = file.storage.bytes().as_ptr_range();
    let view = file.tensor::<f32, Rank1<Fixed<4>>>("w").unwrap();
    let at = view.as_slice().as_ptr().cast::<u8>();
    assert!(storage.contains(&at));
    assert_eq!(
        at,
        file.get::<f32>("w")
            .unwrap()
            .as_slice()
            .as_ptr()
            .cast::<u8>()
    );
    // A load is a copy elsewhere.
    let loaded = file.load::<f32, Rank1<Fixed<4>>>("w").unwrap();
    assert!(!storage.contains(&loaded.as_slice().as_ptr().cast::<u8>()));
}

macro_rules! round_trip_dtype {
    ($name:ident, $t:ty, $dtype:expr, $values:expr) => {
        #[test]
        fn $name() {
            let values: Vec<$t> = $values;
            let n = values.len();
            let t = Tensor::<$t, Rank1<Dyn>>::from_vec(values.clone()).unwrap();
            let bytes = SafetensorsWriter::new().tensor("t", &t).to_bytes().unwrap();
            // The crate's reader sees the dtype, dims and the little-endian bytes of each
            // value (computed independently with `to_le_bytes`).
            let read = ::safetensors::SafeTensors::deserialize(&bytes).unwrap();
            let sf = read.tensor("t").unwrap();
            assert_eq!(sf.dtype(), $dtype);
            assert_eq!(sf.shape(), &[n]);
            let expected: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            assert_eq!(sf.data(), &expected[..]);
            // And this module reads it back, in place and copied.
            let file = SafetensorsFile::from_bytes(&bytes).unwrap();
            assert_eq!(
                file.tensor::<$t, Rank1<Dyn>>("t").unwrap().as_slice(),
                &values[..]
            );
            assert_eq!(
                file.load::<$t, Rank1<Dyn>>("t").unwrap().as_slice(),
                &values[..]
            );
        }
    };
}

round_trip_dtype!(round_trip_u8, u8, Dtype::U8, vec![0, 1, 127, 255, 9]);
round_trip_dtype!(
    round_trip_u16,
    u16,
    Dtype::U16,
    vec![0, 1, 0x1234, u16::MAX]
);
round_trip_dtype!(
    round_trip_u32,
    u32,
    Dtype::U32,
    vec![0, 0xDEAD_BEEF, u32::MAX]
);
round_trip_dtype!(round_trip_u64, u64, Dtype::U64, vec![u64::MAX, 1 << 40, 3]);
round_trip_dtype!(
    round_trip_i8,
    i8,
    Dtype::I8,
    vec![i8::MIN, -1, 0, 1, i8::MAX]
);
round_trip_dtype!(round_trip_i16, i16, Dtype::I16, vec![i16::MIN, -300, 300]);
round_trip_dtype!(
    round_trip_i32,
    i32,
    Dtype::I32,
    vec![i32::MIN, -7, 7, i32::MAX]
);
round_trip_dtype!(round_trip_i64, i64, Dtype::I64, vec![i64::MIN, -1, 1 << 50]);
round_trip_dtype!(
    round_trip_f32,
    f32,
    Dtype::F32,
    vec![0.1, -0.0, f32::INFINITY, f32::MIN_POSITIVE / 2.0, 3.0]
);
round_trip_dtype!(
    round_trip_f64,
    f64,
    Dtype::F64,
    vec![0.1, -1e300, f64::NEG_INFINITY]
);
round_trip_dtype!(
    round_trip_f16,
    f16,
    Dtype::F16,
    [0.5f32, -3.0, 65504.0].map(f16::from_f32).to_vec()
);
round_trip_dtype!(
    round_trip_bf16,
    bf16,
    Dtype::BF16,
    [0.5f32, -3.0, 1e38].map(bf16::from_f32).to_vec()
);

#[test]
fn round_trip_bool() {
    let values = vec![true, false, false, true, true];
    let t = Tensor::<bool, Rank1<Fixed<5>>>::from_vec(values.clone()).unwrap();
    let bytes = SafetensorsWriter::new().tensor("m", &t).to_bytes().unwrap();
    let read = ::safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(read.tensor("m").unwrap().dtype(), Dtype::BOOL);
    assert_eq!(read.tensor("m").unwrap().data(), &[1, 0, 0, 1, 1]);
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    assert_eq!(
        file.tensor::<bool, Rank1<Fixed<5>>>("m")
            .unwrap()
            .as_slice(),
        &values[..]
    );
}

/// The writer lays a file out byte for byte as the safetensors crate does (dtypes by
/// decreasing alignment, then names; header padded to 8), so every tensor is aligned.
#[test]
// `&d.view()` is borrowed on purpose: `&TensorView` is a form of its own.
#[allow(clippy::needless_borrows_for_generic_args)]
fn writes_what_the_safetensors_crate_writes() {
    let a = Tensor::<u8, Rank1<Fixed<3>>>::from_vec(vec![1, 2, 3]).unwrap();
    let b = Tensor::<f64, Rank2<Fixed<1>, Fixed<2>>>::from_vec(vec![0.5, -0.5]).unwrap();
    let c = Tensor::<f32, Rank0>::from_vec(vec![7.0]).unwrap();
    let d = Tensor::<i16, Rank1<Fixed<1>>>::from_vec(vec![-2]).unwrap();
    let mine = SafetensorsWriter::new()
        .tensor("a", &a)
        .tensor("b", b.view())
        .tensor("c", &c)
        .tensor("d", &d.view())
        .to_bytes()
        .unwrap();
    let theirs = crate_file(&[
        ("c", Dtype::F32, vec![], 7.0f32.to_le_bytes().to_vec()),
        ("a", Dtype::U8, vec![3], vec![1, 2, 3]),
        ("d", Dtype::I16, vec![1], (-2i16).to_le_bytes().to_vec()),
        (
            "b",
            Dtype::F64,
            vec![1, 2],
            [0.5f64, -0.5]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
    ]);
    assert_eq!(mine, theirs);
    assert_eq!(u64::from_le_bytes(mine[..8].try_into().unwrap()) % 8, 0);
    let file = SafetensorsFile::from_bytes(&mine).unwrap();
    assert_eq!(file.names(), ["b", "c", "d", "a"]);
    assert_eq!(file.tensor::<f32, Rank0>("c").unwrap()[[]], 7.0);
    assert_eq!(
        file.tensor::<i16, Rank1<Dyn>>("d").unwrap().as_slice(),
        &[-2]
    );
}

/// Sizes 0, 1 and odd, ranks 0 to 3, through the writer and back in every way.
#[test]
fn sizes_zero_one_and_odd() {
    let empty = Tensor::<f32, Rank2<Dyn, Fixed<4>>>::from_shape_vec([0, 4], vec![]).unwrap();
    let one = Tensor::<f32, Rank1<Fixed<1>>>::from_vec(vec![2.5]).unwrap();
    let scalar = Tensor::<i32, Rank0>::from_vec(vec![-9]).unwrap();
    let odd_values: Vec<f32> = (0..105).map(|i| i as f32 * 0.5 - 20.0).collect();
    let odd =
        Tensor::<f32, Rank3<Fixed<3>, Fixed<5>, Fixed<7>>>::from_vec(odd_values.clone()).unwrap();
    let bytes_u8: Vec<u8> = (0..7).collect();
    let odd_u8 = Tensor::<u8, Rank1<Dyn>>::from_vec(bytes_u8.clone()).unwrap();
    let bytes = SafetensorsWriter::new()
        .tensor("empty", &empty)
        .tensor("one", &one)
        .tensor("scalar", &scalar)
        .tensor("odd", &odd)
        .tensor("odd_u8", &odd_u8)
        .to_bytes()
        .unwrap();
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    let e = file.tensor::<f32, Rank2<Dyn, Fixed<4>>>("empty").unwrap();
    assert_eq!((e.shape(), e.as_slice().len()), (&[0usize, 4][..], 0));
    assert_eq!(file.get::<f32>("empty").unwrap().shape(), &[0, 4]);
    assert_eq!(
        file.load::<f32, Rank2<Dyn, Dyn>>("empty").unwrap().shape(),
        &[0, 4]
    );
    assert_eq!(
        file.tensor::<f32, Rank1<Fixed<1>>>("one")
            .unwrap()
            .as_slice(),
        &[2.5]
    );
    assert_eq!(file.load::<i32, Rank0>("scalar").unwrap().item(), -9);
    let o = file
        .tensor::<f32, Rank3<Dyn, Fixed<5>, Dyn>>("odd")
        .unwrap();
    assert_eq!(o.shape(), &[3, 5, 7]);
    assert_eq!(o.as_slice(), &odd_values[..]);
    assert_eq!(o[[2, 4, 6]], 104.0 * 0.5 - 20.0);
    assert_eq!(
        file.tensor::<u8, Rank1<Fixed<7>>>("odd_u8")
            .unwrap()
            .as_slice(),
        &bytes_u8[..]
    );
    // An empty file of tensors.
    let none = SafetensorsWriter::new().to_bytes().unwrap();
    assert!(SafetensorsFile::from_bytes(&none)
        .unwrap()
        .names()
        .is_empty());
}

fn two_tensor_file() -> Vec<u8> {
    crate_file(&[
        ("weight", Dtype::F32, vec![2, 3], le_bytes_f32(&[1.0; 6])),
        ("bias", Dtype::F32, vec![3], le_bytes_f32(&[0.0; 3])),
    ])
}

#[test]
fn wrong_dtype_names_tensor_declared_and_stored() {
    let file = SafetensorsFile::from_bytes(&two_tensor_file()).unwrap();
    let err = file
        .tensor::<f64, Rank2<Dyn, Fixed<3>>>("weight")
        .unwrap_err();
    assert!(matches!(
        &err,
        SafetensorsError::Mismatch { tensor, declared, stored, .. }
            if tensor == "weight" && declared == "f64[_, 3]" && stored == "f32[2, 3]"
    ));
    assert_eq!(
        err.to_string(),
        "tensor `weight` of <memory> is stored as `f32[2, 3]`, but is read as `f64[_, 3]`"
    );
    let err = file.get::<i32>("bias").unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `bias` of <memory> is stored as `f32[3]`, but is read as `i32[…]`"
    );
    assert!(file.load::<f16, Rank1<Dyn>>("bias").is_err());
}

#[test]
fn wrong_shape_names_tensor_declared_and_stored() {
    let file = SafetensorsFile::from_bytes(&two_tensor_file()).unwrap();
    // Another literal dim.
    let err = file
        .tensor::<f32, Rank2<Fixed<2>, Fixed<4>>>("weight")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `weight` of <memory> is stored as `f32[2, 3]`, but is read as `f32[2, 4]`"
    );
    // Another rank.
    let err = file.tensor::<f32, Rank1<Dyn>>("weight").unwrap_err();
    assert!(matches!(
        &err,
        SafetensorsError::Mismatch { declared, stored, .. } if declared == "f32[_]" && stored == "f32[2, 3]"
    ));
    assert!(file.load::<f32, Rank3<Dyn, Dyn, Dyn>>("weight").is_err());
    assert!(file.tensor::<f32, Rank0>("bias").is_err());
}

#[test]
fn missing_name_lists_the_others() {
    let file = SafetensorsFile::from_bytes(&two_tensor_file()).unwrap();
    let err = file.tensor::<f32, Rank1<Dyn>>("bais").unwrap_err();
    assert!(matches!(
        &err,
        SafetensorsError::Missing { tensor, available, .. }
            if tensor == "bais" && available == &["bias", "weight"]
    ));
    assert_eq!(
        err.to_string(),
        "no tensor `bais` in <memory>; it has `bias`, `weight`"
    );
    assert!(matches!(
        file.get::<f32>("x"),
        Err(SafetensorsError::Missing { .. })
    ));
    assert!(matches!(
        file.load::<f32, Rank1<Dyn>>("x"),
        Err(SafetensorsError::Missing { .. })
    ));
}

#[test]
fn truncated_files_are_errors() {
    let bytes = two_tensor_file();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let full = bytes.len();
    assert_eq!(full, 8 + n + 36);
    for cut in [0, 1, 7] {
        let err = SafetensorsFile::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err, SafetensorsError::Truncated { len, needed: 8, .. } if len == cut),
            "{cut}: {err}"
        );
    }
    for cut in [8, 9, 8 + n - 1] {
        let err = SafetensorsFile::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err, SafetensorsError::Truncated { len, needed, .. } if len == cut && needed == 8 + n),
            "{cut}: {err}"
        );
    }
    for cut in [8 + n, 8 + n + 1, full - 1] {
        let err = SafetensorsFile::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err, SafetensorsError::Truncated { len, needed, .. } if len == cut && needed == full),
            "{cut}: {err}"
        );
        assert_eq!(
            err.to_string(),
            format!("safetensors file <memory> is truncated: it has {cut} bytes, its header needs {full}")
        );
    }
    // Trailing bytes: the header does not describe the file exactly.
    let mut longer = bytes.clone();
    longer.push(0);
    let err = SafetensorsFile::from_bytes(&longer).unwrap_err();
    assert!(matches!(err, SafetensorsError::Format { .. }), "{err}");
    assert!(err.to_string().contains(&format!(
        "describes {full} bytes but the file has {}",
        full + 1
    )));
}

#[test]
fn malformed_headers_are_errors() {
    for (header, data) in [
        ("{not json", &[][..]),
        (
            r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#,
            &[0u8; 4][..],
        ),
        (
            r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
            &[0u8; 8][..],
        ),
        (
            r#"{"w":{"dtype":"Q99","shape":[1],"data_offsets":[0,4]}}"#,
            &[0u8; 4][..],
        ),
    ] {
        let err = SafetensorsFile::from_bytes(&raw_file(header, data)).unwrap_err();
        assert!(
            matches!(err, SafetensorsError::Format { .. }),
            "{header}: {err}"
        );
    }
    // A header length past any header the crate accepts.
    let mut huge = u64::MAX.to_le_bytes().to_vec();
    huge.extend_from_slice(b"{}");
    assert!(SafetensorsFile::from_bytes(&huge).is_err());
}

/// A tensor whose data the file does not align for its dtype: `tensor` and `get` refuse it
/// (never an unaligned reference), `load` copies it.
#[test]
fn misaligned_offsets_are_errors_and_load_copies() {
    let values = [1.5f32, -2.0, 3.25];
    let mut data = vec![42u8];
    data.extend(le_bytes_f32(&values));
    // One byte of `u8` first, so the `f32` data starts one byte after an 8-aligned header.
    let header = r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"w":{"dtype":"F32","shape":[3],"data_offsets":[1,13]}}"#;
    let header = format!("{header:<width$}", width = header.len().next_multiple_of(8));
    let bytes = raw_file(&header, &data);
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    let offset = 8 + header.len() + 1;
    let err = file.tensor::<f32, Rank1<Fixed<3>>>("w").unwrap_err();
    assert!(
        matches!(&err, SafetensorsError::Misaligned { tensor, offset: o, align: 4, .. } if tensor == "w" && *o == offset),
        "{err}"
    );
    assert!(err.to_string().contains("`SafetensorsFile::load`"));
    assert!(matches!(
        file.get::<f32>("w"),
        Err(SafetensorsError::Misaligned { .. })
    ));
    assert_eq!(
        file.load::<f32, Rank1<Fixed<3>>>("w").unwrap().as_slice(),
        &values
    );
    // A byte-sized dtype is aligned anywhere.
    assert_eq!(
        file.tensor::<u8, Rank1<Fixed<1>>>("a").unwrap().as_slice(),
        &[42]
    );

    // A header whose length is not a multiple of the dtype's alignment does the same.
    let header = r#"{"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}"#;
    assert_ne!((8 + header.len()) % 8, 0);
    let bytes = raw_file(header, &0.75f64.to_le_bytes());
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    assert!(matches!(
        file.tensor::<f64, Rank1<Fixed<1>>>("w"),
        Err(SafetensorsError::Misaligned { align: 8, .. })
    ));
    assert_eq!(
        file.load::<f64, Rank1<Fixed<1>>>("w").unwrap().as_slice(),
        &[0.75]
    );
}

#[test]
fn bool_bytes_other_than_0_and_1_are_errors() {
    let bytes = raw_file(
        r#"{"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}"#,
        &[1, 0, 2],
    );
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    for err in [
        file.tensor::<bool, Rank1<Fixed<3>>>("m").unwrap_err(),
        file.get::<bool>("m").unwrap_err(),
        file.load::<bool, Rank1<Dyn>>("m").unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                SafetensorsError::InvalidBool {
                    index: 2,
                    byte: 2,
                    ..
                }
            ),
            "{err}"
        );
    }
    // No dtype is converted: the bytes are not `u8` either.
    assert!(matches!(
        file.tensor::<u8, Rank1<Dyn>>("m"),
        Err(SafetensorsError::Mismatch { .. })
    ));
}

#[test]
fn dtypes_the_language_lacks_are_errors() {
    let bytes = raw_file(
        r#"{"q":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}"#,
        &[1, 2],
    );
    let file = SafetensorsFile::from_bytes(&bytes).unwrap();
    assert_eq!(file.stored_type("q").as_deref(), Some("F8_E4M3[2]"));
    let err = file.tensor::<u8, Rank1<Dyn>>("q").unwrap_err();
    assert!(
        matches!(&err, SafetensorsError::UnsupportedDtype { stored, .. } if stored == "F8_E4M3")
    );
}

#[test]
fn duplicate_names_are_errors() {
    let t = Tensor::<f32, Rank1<Fixed<1>>>::from_vec(vec![1.0]).unwrap();
    let err = SafetensorsWriter::new()
        .tensor("x", &t)
        .tensor("x", &t)
        .to_bytes()
        .unwrap_err();
    assert!(matches!(err, SafetensorsError::DuplicateName(name) if name == "x"));
}

/// A `StoredView` lends its data and stored dims; call entry checks them as for an `IxDyn`
/// array (rank and dims against the parameter).
#[test]
// `&weight` is borrowed on purpose: `&StoredView` is a form of its own.
#[allow(clippy::needless_borrows_for_generic_args)]
fn stored_views_are_graph_arguments() {
    use crate::args::{NoSlice, Sym, TensorArg};
    use crate::bind::{bind_dims, DeclDim, GraphSignature, ParamSig};
    use crate::error::ShapeError;
    static F: GraphSignature = GraphSignature {
        name: "f",
        text: "f(x: f32[B, 3]) -> f32[B]",
        syms: &["B"],
        params: &[ParamSig {
            name: "x",
            ty: "f32[B, 3]",
            dims: &[DeclDim::Sym(0), DeclDim::Static(3)],
        }],
        at_least: &[],
        exprs: &[],
    };
    fn read<X: TensorArg<f32, Rank2<Sym, Fixed<3>>, NoSlice>>(
        x: X,
    ) -> Result<(usize, Vec<f32>), ShapeError> {
        let parts = x.tensor_parts();
        let [b] = bind_dims::<1>(&F, &[parts.arg_shape()])?;
        Ok((b, parts.data.to_vec()))
    }
    let file = SafetensorsFile::from_bytes(&two_tensor_file()).unwrap();
    let weight = file.get::<f32>("weight").unwrap();
    assert_eq!(read(weight), Ok((2, vec![1.0; 6])));
    assert_eq!(read(&weight), Ok((2, vec![1.0; 6])));
    let bias = file.get::<f32>("bias").unwrap();
    assert!(matches!(
        read(bias),
        Err(ShapeError::Rank {
            expected: 2,
            found: 1,
            ..
        })
    ));
    // Its `Debug` shows the dtype and dims, not the elements.
    assert_eq!(
        format!("{bias:?}"),
        "StoredView { dtype: F32, dims: [3], .. }"
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tg-safetensors-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
#[cfg_attr(miri, ignore = "Miri cannot map files")]
fn files_are_mapped_and_written_back() {
    let dir = temp_dir("files");
    let path = dir.join("w.safetensors");
    let w = Tensor::<f32, Rank2<Fixed<2>, Fixed<2>>>::from_vec(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    SafetensorsWriter::new()
        .tensor("w", &w)
        .write(&path)
        .unwrap();
    // SAFETY: this test alone uses the file, and rewrites it only through the writer, which
    // renames a new file over it.
    let mapped = unsafe { SafetensorsFile::open(&path) }.unwrap();
    assert!(matches!(mapped.storage, Storage::Mapped(_)));
    let view = mapped
        .tensor::<f32, Rank2<Fixed<2>, Fixed<2>>>("w")
        .unwrap();
    assert_eq!(view.as_slice(), w.as_slice());
    // Rewriting the file while it is mapped leaves the mapping's contents as they were.
    let w2 = Tensor::<f32, Rank2<Fixed<2>, Fixed<2>>>::full(9.0);
    SafetensorsWriter::new()
        .tensor("w", &w2)
        .write(&path)
        .unwrap();
    assert_eq!(view.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
    let read = SafetensorsFile::read(&path).unwrap();
    assert_eq!(
        read.tensor::<f32, Rank2<Dyn, Dyn>>("w").unwrap().as_slice(),
        &[9.0; 4]
    );
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["w.safetensors"]);
    // A truncated file on disk.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    // SAFETY: as above; the file is not changed while this map lives.
    let err = unsafe { SafetensorsFile::open(&path) }.unwrap_err();
    assert!(matches!(err, SafetensorsError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("w.safetensors"));
    assert!(matches!(
        SafetensorsFile::read(&path),
        Err(SafetensorsError::Truncated { .. })
    ));
    // A file that is not there.
    // SAFETY: nothing maps, the open fails.
    let err = unsafe { SafetensorsFile::open(dir.join("absent.safetensors")) }.unwrap_err();
    assert!(matches!(err, SafetensorsError::Io { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}
