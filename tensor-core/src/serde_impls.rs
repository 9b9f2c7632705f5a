//! serde support (the `serde` feature): `Tensor` serializes and deserializes, views serialize.
//!
//! The format is a struct `Tensor { shape, data }`: `shape` the extents, outermost first,
//! `data` the elements, row-major. In JSON:
//! `{"shape":[2,3],"data":[1,2,3,4,5,6]}`. `f16`/`bf16` elements use `half`'s own serde
//! format (their bits; `f32` numbers are also accepted when reading).
//!
//! Deserialization checks what the constructors check, and a failed check is the
//! deserializer's error, never a panic: the rank and every literal dim of the shape type, an
//! addressable element count, and `data` holding exactly the product of `shape` elements.
//!
#![cfg_attr(not(doctest), doc = include_str!("doc_examples/serde_tensor.md"))]

use crate::dtype::Element;
use crate::shape::Shape;
use crate::tensor::{check_dims, Tensor, TensorView, TensorViewMut};
use core::fmt;
use core::marker::PhantomData;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The struct name and field names of the format.
const NAME: &str = "Tensor";
const FIELDS: &[&str] = &["shape", "data"];

fn serialize_parts<T, Ser>(
    dims: &[usize],
    data: &[T],
    serializer: Ser,
) -> Result<Ser::Ok, Ser::Error>
where
    T: Serialize,
    Ser: Serializer,
{
    let mut state = serializer.serialize_struct(NAME, 2)?;
    state.serialize_field("shape", dims)?;
    state.serialize_field("data", data)?;
    state.end()
}

impl<T: Element + Serialize, S: Shape> Serialize for Tensor<T, S> {
    /// `{shape, data}`: the extents and the row-major elements.
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serialize_parts(self.shape(), self.as_slice(), serializer)
    }
}

impl<T: Element + Serialize, S: Shape> Serialize for TensorView<'_, T, S> {
    /// As the owned tensor's, so a view's output reads back as a [`Tensor`]:
    #[cfg_attr(not(doctest), doc = include_str!("doc_examples/serde_view.md"))]
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serialize_parts(self.shape(), self.as_slice(), serializer)
    }
}

impl<T: Element + Serialize, S: Shape> Serialize for TensorViewMut<'_, T, S> {
    /// As the owned tensor's.
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        serialize_parts(self.shape(), self.as_slice(), serializer)
    }
}

/// A field name of the format; unknown names are an error.
enum Field {
    Shape,
    Data,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`shape` or `data`")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Field, E> {
                match value {
                    "shape" => Ok(Field::Shape),
                    "data" => Ok(Field::Data),
                    other => Err(E::unknown_field(other, FIELDS)),
                }
            }
            fn visit_bytes<E: de::Error>(self, value: &[u8]) -> Result<Field, E> {
                match value {
                    b"shape" => Ok(Field::Shape),
                    b"data" => Ok(Field::Data),
                    other => Err(E::unknown_field(&String::from_utf8_lossy(other), FIELDS)),
                }
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Field, E> {
                match value {
                    0 => Ok(Field::Shape),
                    1 => Ok(Field::Data),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(value), &self)),
                }
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

/// Checks the parts against `S` and builds the tensor; a failed check is `E::custom` with the
/// `ShapeError`'s message.
fn build<T: Element, S: Shape, E: de::Error>(
    shape: Vec<usize>,
    data: Vec<T>,
) -> Result<Tensor<T, S>, E> {
    check_dims(S::STATIC_DIMS, &shape, data.len()).map_err(E::custom)?;
    let mut dims = S::Index::default();
    // `check_dims` compared `shape.len()` with the rank, which is `S::Index`'s length.
    for (slot, &d) in dims.as_mut().iter_mut().zip(&shape) {
        *slot = d;
    }
    Tensor::from_shape_vec(dims, data).map_err(E::custom)
}

struct TensorVisitor<T, S>(PhantomData<(T, S)>);

impl<'de, T: Element + Deserialize<'de>, S: Shape> Visitor<'de> for TensorVisitor<T, S> {
    type Value = Tensor<T, S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a tensor {{shape, data}} of rank {}", S::RANK)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let shape: Vec<usize> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let data: Vec<T> = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        build(shape, data)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut shape: Option<Vec<usize>> = None;
        let mut data: Option<Vec<T>> = None;
        while let Some(key) = map.next_key()? {
            match key {
                Field::Shape if shape.is_some() => return Err(de::Error::duplicate_field("shape")),
                Field::Data if data.is_some() => return Err(de::Error::duplicate_field("data")),
                Field::Shape => shape = Some(map.next_value()?),
                Field::Data => data = Some(map.next_value()?),
            }
        }
        let shape = shape.ok_or_else(|| de::Error::missing_field("shape"))?;
        let data = data.ok_or_else(|| de::Error::missing_field("data"))?;
        build(shape, data)
    }
}

impl<'de, T: Element + Deserialize<'de>, S: Shape> Deserialize<'de> for Tensor<T, S> {
    /// Reads `{shape, data}` and checks it against `S` (see the module documentation).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct(NAME, FIELDS, TensorVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use crate::shape::Fixed;
    use crate::{bf16, f16, Dyn, Rank0, Rank1, Rank2, Rank3, Tensor, TensorViewMut};

    type Rows3 = Rank2<Dyn, Fixed<3>>;

    fn from_json<T, S>(json: &str) -> Result<Tensor<T, S>, String>
    where
        T: crate::Element + for<'de> serde::Deserialize<'de>,
        S: crate::Shape,
    {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn round_trips_every_shape_kind() {
        let t = Tensor::<f64, Rank2<Fixed<2>, Fixed<3>>>::from_fn(|[i, j]| {
            i as f64 * 10.0 + j as f64 - 0.5
        });
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"{"shape":[2,3],"data":[-0.5,0.5,1.5,9.5,10.5,11.5]}"#
        );
        assert_eq!(
            from_json::<f64, Rank2<Fixed<2>, Fixed<3>>>(&json).unwrap(),
            t
        );

        let scalar = Tensor::<u8, Rank0>::full(7);
        let json = serde_json::to_string(&scalar).unwrap();
        assert_eq!(json, r#"{"shape":[],"data":[7]}"#);
        assert_eq!(from_json::<u8, Rank0>(&json).unwrap().as_slice(), &[7]);

        let dynamic = Tensor::<i64, Rank3<Dyn, Dyn, Fixed<2>>>::from_shape_vec(
            [2, 1, 2],
            vec![-1, i64::MAX, i64::MIN, 4],
        )
        .unwrap();
        let back =
            from_json::<i64, Rank3<Dyn, Dyn, Fixed<2>>>(&serde_json::to_string(&dynamic).unwrap())
                .unwrap();
        assert_eq!(back.shape(), &[2, 1, 2]);
        assert_eq!(back.as_slice(), &[-1, i64::MAX, i64::MIN, 4]);

        let empty = Tensor::<bool, Rows3>::from_vec(Vec::new()).unwrap();
        let json = serde_json::to_string(&empty).unwrap();
        assert_eq!(json, r#"{"shape":[0,3],"data":[]}"#);
        assert_eq!(from_json::<bool, Rows3>(&json).unwrap().shape(), &[0, 3]);
    }

    #[test]
    fn half_floats_keep_their_bits() {
        let h =
            Tensor::<f16, Rank1<Fixed<2>>>::from_vec(vec![f16::from_f32(1.0), f16::from_f32(-0.1)])
                .unwrap();
        let back = from_json::<f16, Rank1<Fixed<2>>>(&serde_json::to_string(&h).unwrap()).unwrap();
        assert_eq!(back.as_slice()[1].to_bits(), f16::from_f32(-0.1).to_bits());
        let b = Tensor::<bf16, Rank1<Fixed<2>>>::from_vec(vec![bf16::from_f32(3.0), bf16::MAX])
            .unwrap();
        let back = from_json::<bf16, Rank1<Fixed<2>>>(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn views_serialize_like_tensors() {
        let mut data = [1u16, 2, 3, 4, 5, 6];
        let view = TensorViewMut::<u16, Rows3>::new(&mut data).unwrap();
        assert_eq!(
            serde_json::to_string(&view).unwrap(),
            r#"{"shape":[2,3],"data":[1,2,3,4,5,6]}"#
        );
        assert_eq!(
            serde_json::to_string(&view.view()).unwrap(),
            r#"{"shape":[2,3],"data":[1,2,3,4,5,6]}"#
        );
    }

    /// Random shapes (rank 0..=3, extents 0..=5 or huge) and data lengths read as
    /// `[_, 3]`: Ok with the data exactly when the rank is 2, the literal dim 3 and the length
    /// the product; otherwise an `Err`, never a panic (issue 18, item 6).
    #[test]
    fn random_shapes_and_lengths_are_ok_or_err() {
        let mut rng = crate::testing::Rng::new(0x5eed_0008);
        let mut next = |n: u64| rng.below(n);
        let (mut ok, mut err) = (0, 0);
        // Under Miri fewer rounds, but enough that the Ok cases (about 3%) still occur:
        // at 40 there were none and the check below failed (issue 18).
        let rounds = if cfg!(miri) { 300 } else { 1000 };
        for _ in 0..rounds {
            let rank = next(4) as usize;
            let shape: Vec<u128> = (0..rank)
                .map(|axis| match next(12) {
                    0 => u64::MAX as u128,
                    1 => 1 << 62,
                    2 if axis == 1 => 3,
                    _ => next(6) as u128,
                })
                .collect();
            let product = shape.iter().try_fold(1u128, |p, &d| p.checked_mul(d));
            let len = match (product, next(3)) {
                (Some(p), 0 | 1) if p <= 40 => p as usize,
                _ => next(12) as usize,
            };
            let data: Vec<i32> = (0..len as i32).collect();
            let json = format!(
                r#"{{"shape":{},"data":{}}}"#,
                serde_json::to_string(&shape).unwrap(),
                serde_json::to_string(&data).unwrap()
            );
            let fits = rank == 2 && shape[1] == 3 && product == Some(len as u128);
            let got = std::panic::catch_unwind(|| from_json::<i32, Rows3>(&json))
                .unwrap_or_else(|_| panic!("panicked on {json}"));
            match got {
                Ok(t) => {
                    assert!(fits, "{json}: accepted");
                    assert_eq!(t.shape(), &[shape[0] as usize, 3], "{json}");
                    assert_eq!(t.as_slice(), &data[..], "{json}");
                    ok += 1;
                }
                Err(e) => {
                    assert!(!fits, "{json}: refused: {e}");
                    err += 1;
                }
            }
        }
        assert!(ok > rounds / 50 && err > rounds / 4, "{ok} Ok, {err} Err");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        // Length does not fill the shape.
        let e = from_json::<i32, Rows3>(r#"{"shape":[2,3],"data":[1,2,3,4,5]}"#).unwrap_err();
        assert!(e.contains("6 elements") && e.contains('5'), "{e}");
        // A literal dim of the shape type that disagrees.
        let e = from_json::<i32, Rows3>(r#"{"shape":[3,2],"data":[1,2,3,4,5,6]}"#).unwrap_err();
        assert!(e.contains("axis 1"), "{e}");
        // Wrong rank.
        let e = from_json::<i32, Rows3>(r#"{"shape":[6],"data":[1,2,3,4,5,6]}"#).unwrap_err();
        assert!(e.contains("rank"), "{e}");
        // Extents whose product overflows.
        let huge = format!(r#"{{"shape":[{},{},3],"data":[]}}"#, usize::MAX, usize::MAX);
        assert!(from_json::<i32, Rank3<Dyn, Dyn, Fixed<3>>>(&huge).is_err());
        // A zero extent with a nonempty buffer.
        let e =
            from_json::<i32, Rank2<Fixed<0>, Dyn>>(r#"{"shape":[0,4],"data":[1]}"#).unwrap_err();
        assert!(e.contains("0 elements"), "{e}");
        // Missing, duplicate and unknown fields; wrong element type.
        assert!(from_json::<i32, Rows3>(r#"{"data":[1,2,3]}"#)
            .unwrap_err()
            .contains("missing field `shape`"));
        assert!(
            from_json::<i32, Rows3>(r#"{"shape":[1,3],"shape":[1,3],"data":[1,2,3]}"#)
                .unwrap_err()
                .contains("duplicate field `shape`")
        );
        assert!(
            from_json::<i32, Rows3>(r#"{"shape":[1,3],"data":[1,2,3],"strides":[3,1]}"#)
                .unwrap_err()
                .contains("unknown field `strides`")
        );
        assert!(from_json::<u8, Rows3>(r#"{"shape":[1,3],"data":[1,2,300]}"#).is_err());
        assert!(from_json::<u8, Rows3>(r#"[1,2,3]"#).is_err());
        // The sequence form (what non-self-describing formats use) is checked the same way.
        assert_eq!(
            from_json::<u8, Rows3>(r#"[[1,3],[1,2,3]]"#)
                .unwrap()
                .as_slice(),
            &[1, 2, 3]
        );
        assert!(from_json::<u8, Rows3>(r#"[[2,3],[1,2,3]]"#).is_err());
    }
}
