//! Weights from [safetensors](https://huggingface.co/docs/safetensors) files (the
//! `safetensors` feature): a file opened memory-mapped hands each named tensor to a graph as
//! a view of the mapped bytes, with no copy, and graph outputs are written back with
//! [`SafetensorsWriter`].
//!
// The example is written as a user writes it, with `tensorgraph::` paths, which this crate
// cannot compile: rendered here, it runs as a doctest of the `tensorgraph` crate
// (`SafetensorsDoctests`, with the `safetensors` feature).
#![cfg_attr(not(doctest), doc = include_str!("safetensors/example.md"))]
//!
//! Rules:
//! - [`SafetensorsFile::tensor`] gives a [`TensorView`] of the declared dtype and shape
//!   type, which every graph takes (with literal dims or names, by name or in the closure
//!   form). The stored dtype must be the declared one (no conversion) and the stored dims
//!   must have the declared rank and literal dims; names and `_` take the stored size (and
//!   call entry checks names against the other arguments, as for any view).
//! - [`SafetensorsFile::get`] gives a [`StoredView`], checked for its dtype only; its rank
//!   and dims are checked at call entry against the parameter, as an ndarray `IxDyn` array
//!   is (a graph with names only).
//! - The data is read in place only where it is aligned for its dtype: safetensors stores
//!   offsets with byte granularity. Files this module and safetensors' own writers produce
//!   are aligned (tensors sorted by decreasing alignment, the header padded to 8 bytes);
//!   another file may not be, and a misaligned tensor is an `Err` saying so (never an
//!   unaligned reference). [`SafetensorsFile::load`] copies the tensor into a new
//!   [`Tensor`] instead, whatever its alignment: the documented fallback, never taken
//!   silently.
//! - A `bool` tensor's bytes must each be 0 or 1 (checked); every other dtype accepts every
//!   bit pattern. The data is little-endian: on a big-endian target `tensor` and `get` are
//!   an `Err` for dtypes wider than a byte, and `load` and the writer swap bytes.
//! - A truncated file, or one whose header does not describe its data exactly, is an `Err`
//!   when it is opened.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use ::safetensors::tensor::{Dtype, Metadata, TensorInfo};
use ::safetensors::SafeTensorError;

use crate::args::{AnyRank, ArgParts, Lend, LendPointee};
use crate::dtype::{DType, Element};
use crate::shape::{static_dims_text, Shape};
use crate::tensor::{Tensor, TensorView};

/// The bytes before the header: its length, a little-endian `u64`.
const N_LEN: usize = 8;

/// What went wrong reading or writing a safetensors file.
#[derive(Debug)]
#[non_exhaustive]
pub enum SafetensorsError {
    /// The file could not be opened, mapped, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file ends before the data its header describes.
    Truncated {
        /// The file (`<memory>` for bytes).
        file: String,
        /// Its length in bytes.
        len: usize,
        /// The length its header (or header length) requires.
        needed: usize,
    },
    /// The header is not a valid safetensors header, or does not describe the data exactly.
    Format {
        /// The file.
        file: String,
        /// What is wrong, as the safetensors crate words it.
        reason: String,
    },
    /// No tensor of that name.
    Missing {
        /// The file.
        file: String,
        /// The name asked for.
        tensor: String,
        /// The names the file has, in file order.
        available: Vec<String>,
    },
    /// The stored dtype or dims are not those the tensor is read as.
    Mismatch {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The type it is read as, in the graph language's notation (`f32[_, 768]`).
        declared: String,
        /// The type stored (`f16[1024, 768]`).
        stored: String,
    },
    /// The stored dtype is none of the language's (`F8_E4M3`, `C64`, …).
    UnsupportedDtype {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The dtype as safetensors names it.
        stored: String,
    },
    /// The tensor's data is not aligned for its dtype in memory, so no view can be made.
    Misaligned {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// Where its data starts in the file.
        offset: usize,
        /// The alignment its dtype needs.
        align: usize,
    },
    /// A `bool` tensor holds a byte other than 0 and 1.
    InvalidBool {
        /// The file.
        file: String,
        /// The tensor.
        tensor: String,
        /// The element's index.
        index: usize,
        /// The byte.
        byte: u8,
    },
    /// A view of little-endian data wider than a byte on a big-endian target.
    BigEndian {
        /// The tensor.
        tensor: String,
    },
    /// The writer was given two tensors of one name.
    DuplicateName(String),
}

impl fmt::Display for SafetensorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SafetensorsError::Io { path, source } => {
                write!(f, "safetensors file {}: {source}", path.display())
            }
            SafetensorsError::Truncated { file, len, needed } => write!(
                f,
                "safetensors file {file} is truncated: it has {len} bytes, its header needs {needed}"
            ),
            SafetensorsError::Format { file, reason } => {
                write!(f, "{file} is not a valid safetensors file: {reason}")
            }
            SafetensorsError::Missing {
                file,
                tensor,
                available,
            } => {
                write!(f, "no tensor `{tensor}` in {file}; it has ")?;
                if available.is_empty() {
                    return f.write_str("none");
                }
                let shown: Vec<String> = available.iter().take(20).map(|n| format!("`{n}`")).collect();
                f.write_str(&shown.join(", "))?;
                if available.len() > 20 {
                    write!(f, " and {} more", available.len() - 20)?;
                }
                Ok(())
            }
            SafetensorsError::Mismatch {
                file,
                tensor,
                declared,
                stored,
            } => write!(
                f,
                "tensor `{tensor}` of {file} is stored as `{stored}`, but is read as `{declared}`"
            ),
            SafetensorsError::UnsupportedDtype {
                file,
                tensor,
                stored,
            } => write!(
                f,
                "tensor `{tensor}` of {file} has dtype {stored}, which is none of the graph language's"
            ),
            SafetensorsError::Misaligned {
                file,
                tensor,
                offset,
                align,
            } => write!(
                f,
                "tensor `{tensor}` of {file} starts at byte {offset}, not at a multiple of {align} \
                 as its dtype needs, so it cannot be read in place: load a copy with \
                 `SafetensorsFile::load`, or rewrite the file with `SafetensorsWriter` (which \
                 aligns every tensor)"
            ),
            SafetensorsError::InvalidBool {
                file,
                tensor,
                index,
                byte,
            } => write!(
                f,
                "tensor `{tensor}` of {file} is `bool` but element {index} is the byte {byte} (not 0 or 1)"
            ),
            SafetensorsError::BigEndian { tensor } => write!(
                f,
                "tensor `{tensor}`: safetensors data is little-endian and this target is \
                 big-endian, so it cannot be read in place: load a copy with `SafetensorsFile::load`"
            ),
            SafetensorsError::DuplicateName(name) => {
                write!(f, "two tensors named `{name}` given to one safetensors file")
            }
        }
    }
}

impl std::error::Error for SafetensorsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SafetensorsError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The language's dtype of a safetensors dtype, if it has one.
fn dtype_of(stored: Dtype) -> Option<DType> {
    Some(match stored {
        Dtype::BOOL => DType::Bool,
        Dtype::U8 => DType::U8,
        Dtype::U16 => DType::U16,
        Dtype::U32 => DType::U32,
        Dtype::U64 => DType::U64,
        Dtype::I8 => DType::I8,
        Dtype::I16 => DType::I16,
        Dtype::I32 => DType::I32,
        Dtype::I64 => DType::I64,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::F32 => DType::F32,
        Dtype::F64 => DType::F64,
        _ => return None,
    })
}

/// The safetensors dtype of a language dtype.
fn stored_dtype(dtype: DType) -> Dtype {
    match dtype {
        DType::Bool => Dtype::BOOL,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
    }
}

/// `f32[2, 3]`: a stored type in the language's notation (safetensors' own name for a dtype
/// the language lacks).
fn stored_text(info: &TensorInfo) -> String {
    let dims: Vec<String> = info.shape.iter().map(usize::to_string).collect();
    let dtype =
        dtype_of(info.dtype).map_or_else(|| info.dtype.to_string(), |d| d.name().to_string());
    format!("{dtype}[{}]", dims.join(", "))
}

/// The bytes of a file: mapped, or read into memory aligned to 8.
enum Storage {
    Mapped(memmap2::Mmap),
    /// Words, so that the bytes are aligned for every dtype; `len` bytes of them are the file.
    Owned {
        words: Vec<u64>,
        len: usize,
    },
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(map) => map,
            Storage::Owned { words, len } => &bytemuck::cast_slice::<u64, u8>(words)[..*len],
        }
    }

    fn copied(bytes: &[u8]) -> Storage {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Storage::Owned {
            words,
            len: bytes.len(),
        }
    }
}

/// A safetensors file, its header parsed and checked, whose tensors are lent to graphs as
/// views of its bytes (see the [module docs](self)).
pub struct SafetensorsFile {
    storage: Storage,
    /// Where the data section starts: after the length and the header.
    data_start: usize,
    metadata: Metadata,
    /// The file's path, for messages (`<memory>` for bytes).
    file: String,
}

impl fmt::Debug for SafetensorsFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SafetensorsFile")
            .field("file", &self.file)
            .field("tensors", &self.metadata.offset_keys())
            .finish()
    }
}

impl SafetensorsFile {
    /// Maps the file at `path` into memory (no read, no copy) and checks its header: a
    /// truncated file, or a header that does not describe the data exactly, is an `Err`.
    ///
    /// # Safety
    ///
    /// Nothing may modify or truncate the file while the returned value (or a view of it)
    /// lives: a memory map shows such changes to the views, which Rust assumes immutable, and
    /// a truncation faults on access. This is memory mapping's contract (memmap2's
    /// `Mmap::map`), which no library can check. [`SafetensorsWriter::write`] never writes
    /// a file in place (it writes a new file and renames it over the old one), so saving
    /// over a mapped file with it is safe. Without that guarantee, use
    /// [`read`](Self::read).
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self, SafetensorsError> {
        let path = path.as_ref();
        let io = |source| SafetensorsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        // SAFETY: the caller guarantees (this function's contract) that the file is neither
        // modified nor truncated while the map lives; the map is read-only.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Self::parse(Storage::Mapped(map), path.display().to_string())
    }

    /// Reads the file at `path` into memory (aligned for every dtype) and checks its header,
    /// as [`open`](Self::open) does: one copy when it is read, none when its tensors are
    /// lent to graphs. Safe whatever happens to the file afterwards.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, SafetensorsError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| SafetensorsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(Storage::copied(&bytes), path.display().to_string())
    }

    /// A file's bytes already in memory, copied into storage aligned for every dtype.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SafetensorsError> {
        Self::parse(Storage::copied(bytes), "<memory>".to_string())
    }

    fn parse(storage: Storage, file: String) -> Result<Self, SafetensorsError> {
        let bytes = storage.bytes();
        let len = bytes.len();
        let truncated = |needed| SafetensorsError::Truncated {
            file: file.clone(),
            len,
            needed,
        };
        let Some(head) = bytes.get(..N_LEN) else {
            return Err(truncated(N_LEN));
        };
        let n = u64::from_le_bytes(head.try_into().expect("8 bytes"));
        let header_end = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_add(N_LEN))
            .ok_or_else(|| SafetensorsError::Format {
                file: file.clone(),
                reason: format!("a header length of {n} bytes"),
            })?;
        if header_end > len && n <= 100_000_000 {
            return Err(truncated(header_end));
        }
        match ::safetensors::SafeTensors::read_metadata(bytes) {
            Ok((n, metadata)) => Ok(SafetensorsFile {
                data_start: N_LEN + n,
                metadata,
                file,
                storage,
            }),
            Err(SafeTensorError::MetadataIncompleteBuffer) => {
                // The header parsed; the data section's length differs from what it
                // describes. Shorter: truncated; longer: trailing bytes.
                let header = &bytes[N_LEN..header_end];
                let needed = serde_json::from_slice::<Metadata>(header)
                    .map(|m| header_end + m.data_len())
                    .unwrap_or(len);
                if needed > len {
                    Err(truncated(needed))
                } else {
                    Err(SafetensorsError::Format {
                        file,
                        reason: format!(
                            "its header describes {needed} bytes but the file has {len}"
                        ),
                    })
                }
            }
            Err(e) => Err(SafetensorsError::Format {
                file,
                reason: e.to_string(),
            }),
        }
    }

    /// The tensors' names, in file order.
    pub fn names(&self) -> Vec<String> {
        self.metadata.offset_keys()
    }

    /// The stored type of `name` in the language's notation (`f32[2, 3]`), if the file has it.
    pub fn stored_type(&self, name: &str) -> Option<String> {
        self.metadata.info(name).map(stored_text)
    }

    /// The stored dims of `name`, if the file has it.
    pub fn dims(&self, name: &str) -> Option<&[usize]> {
        self.metadata.info(name).map(|info| &info.shape[..])
    }

    fn info(&self, name: &str) -> Result<&TensorInfo, SafetensorsError> {
        self.metadata
            .info(name)
            .ok_or_else(|| SafetensorsError::Missing {
                file: self.file.clone(),
                tensor: name.to_string(),
                available: self.metadata.offset_keys(),
            })
    }

    /// The tensor's bytes and info, its dtype checked to be `T`'s (`declared` for the
    /// message: the type it is read as).
    fn checked_bytes<T: Element>(
        &self,
        name: &str,
        declared: impl FnOnce() -> String,
    ) -> Result<(&[u8], &TensorInfo), SafetensorsError> {
        let info = self.info(name)?;
        let Some(dtype) = dtype_of(info.dtype) else {
            return Err(SafetensorsError::UnsupportedDtype {
                file: self.file.clone(),
                tensor: name.to_string(),
                stored: info.dtype.to_string(),
            });
        };
        if dtype != T::DTYPE {
            return Err(self.mismatch(name, declared(), info));
        }
        let (start, end) = info.data_offsets;
        // `read_metadata` checked that the offsets tile the data section, which ends at the
        // end of the buffer, and that `end - start` is the dims' product times the size.
        let bytes = &self.storage.bytes()[self.data_start + start..self.data_start + end];
        debug_assert_eq!(bytes.len() % core::mem::size_of::<T>(), 0);
        if T::DTYPE == DType::Bool {
            if let Some((index, &byte)) = bytes.iter().enumerate().find(|&(_, &b)| b > 1) {
                return Err(SafetensorsError::InvalidBool {
                    file: self.file.clone(),
                    tensor: name.to_string(),
                    index,
                    byte,
                });
            }
        }
        Ok((bytes, info))
    }

    fn mismatch(&self, name: &str, declared: String, info: &TensorInfo) -> SafetensorsError {
        SafetensorsError::Mismatch {
            file: self.file.clone(),
            tensor: name.to_string(),
            declared,
            stored: stored_text(info),
        }
    }

    /// `bytes` as `&[T]` in place: `Err` unless aligned for `T` (and little-endian).
    fn in_place<'a, T: Element>(
        &self,
        name: &str,
        bytes: &'a [u8],
    ) -> Result<&'a [T], SafetensorsError> {
        let size = core::mem::size_of::<T>();
        let len = bytes.len() / size;
        if len == 0 {
            return Ok(&[]);
        }
        if cfg!(target_endian = "big") && size > 1 {
            return Err(SafetensorsError::BigEndian {
                tensor: name.to_string(),
            });
        }
        let align = core::mem::align_of::<T>();
        if !(bytes.as_ptr() as usize).is_multiple_of(align) {
            let offset = bytes.as_ptr() as usize - self.storage.bytes().as_ptr() as usize;
            return Err(SafetensorsError::Misaligned {
                file: self.file.clone(),
                tensor: name.to_string(),
                offset,
                align,
            });
        }
        // SAFETY: `bytes` is `len * size_of::<T>()` initialised bytes (a slice of the file's
        // storage), and its start is aligned for `T` (checked above), so `len` elements of
        // `T` fit exactly. `T` is one of the 13 `Element` types (sealed): integers, floats
        // and `half`'s `f16`/`bf16` (a `u16` inside) accept every bit pattern, in this
        // target's (little-endian, checked above) byte order; `bool` accepts only 0 and 1,
        // which `checked_bytes` verified of every byte. The result borrows `bytes`, which
        // borrows `self.storage`: immutable while borrowed (for a map, by `open`'s contract).
        Ok(unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
    }

    /// The declared type `T[S]` in the language's notation (`f32[_, 768]`).
    fn declared<T: Element, S: Shape>() -> String {
        format!("{}{}", T::DTYPE.name(), static_dims_text(S::STATIC_DIMS))
    }

    /// The dims of `info` as `S`'s index, checked against `S`'s rank and literal dims.
    fn dims_as<T: Element, S: Shape>(
        &self,
        name: &str,
        info: &TensorInfo,
    ) -> Result<S::Index, SafetensorsError> {
        let fits = info.shape.len() == S::RANK
            && S::STATIC_DIMS
                .iter()
                .zip(&info.shape)
                .all(|(declared, &stored)| declared.is_none_or(|d| d == stored));
        if !fits {
            return Err(self.mismatch(name, Self::declared::<T, S>(), info));
        }
        let mut dims = S::Index::default();
        dims.as_mut().copy_from_slice(&info.shape);
        Ok(dims)
    }

    /// The tensor `name` as a view of dtype `T` and shape type `S`, read in place (no copy).
    ///
    /// `Err` (naming the tensor, the declared and the stored type) when it is missing, its
    /// dtype is not `T`, or its dims do not have `S`'s rank and literal dims; when its data
    /// is not aligned for `T` (see the [module docs](self); [`load`](Self::load) copies
    /// instead); and for a `bool` tensor with a byte other than 0 or 1. Passed straight to a
    /// graph, `T` and `S` are inferred from a parameter with literal dims; write them for a
    /// parameter with names (`weights.tensor::<f32, Shape![_, 768]>("w")?`).
    pub fn tensor<T: Element, S: Shape>(
        &self,
        name: &str,
    ) -> Result<TensorView<'_, T, S>, SafetensorsError> {
        let (bytes, info) = self.checked_bytes::<T>(name, Self::declared::<T, S>)?;
        let dims = self.dims_as::<T, S>(name, info)?;
        let data = self.in_place::<T>(name, bytes)?;
        Ok(TensorView { data, dims })
    }

    /// The tensor `name` as a [`StoredView`] of dtype `T` (no copy), its dtype checked here
    /// and its rank and dims at call entry, against the parameter it is passed to (a graph
    /// with dim names; `T` is inferred from the parameter). `Err` as
    /// [`tensor`](Self::tensor), less the shape check.
    pub fn get<T: Element>(&self, name: &str) -> Result<StoredView<'_, T>, SafetensorsError> {
        let (bytes, info) = self.checked_bytes::<T>(name, || format!("{}[…]", T::DTYPE.name()))?;
        let data = self.in_place::<T>(name, bytes)?;
        Ok(StoredView {
            data,
            dims: &info.shape,
        })
    }

    /// The tensor `name` copied into a new [`Tensor`], checked as [`tensor`](Self::tensor)
    /// but read at any alignment and in either byte order: the fallback for files whose
    /// tensors are not aligned.
    pub fn load<T: Element, S: Shape>(&self, name: &str) -> Result<Tensor<T, S>, SafetensorsError> {
        let (bytes, info) = self.checked_bytes::<T>(name, Self::declared::<T, S>)?;
        let dims = self.dims_as::<T, S>(name, info)?;
        let size = core::mem::size_of::<T>();
        let len = bytes.len() / size;
        let mut data: Vec<T> = Vec::with_capacity(len);
        // SAFETY: `data` has capacity for `len` elements, `len * size` bytes, which is
        // `bytes.len()`; the two buffers are distinct allocations. Every element's bytes are
        // a valid `T` once in native order (as in `in_place`: every pattern for the numeric
        // dtypes, 0 or 1 for `bool`, checked), which the swap below makes them on a
        // big-endian target before `set_len` exposes them.
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                data.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
            if cfg!(target_endian = "big") && size > 1 {
                let raw =
                    core::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), bytes.len());
                raw.chunks_exact_mut(size).for_each(<[u8]>::reverse);
            }
            data.set_len(len);
        }
        Tensor::from_shape_vec(dims, data).map_err(|e| SafetensorsError::Format {
            file: self.file.clone(),
            reason: format!("tensor `{name}`: {e}"),
        })
    }
}

/// A tensor of a [`SafetensorsFile`] lent with its stored dims, whatever its rank: what
/// [`SafetensorsFile::get`] returns. A graph with dim names takes it (by value or by
/// reference) for any tensor parameter of dtype `T` and checks its rank and dims at call
/// entry, as for an `ndarray` `IxDyn` array.
#[derive(Clone, Copy)]
pub struct StoredView<'a, T> {
    data: &'a [T],
    dims: &'a [usize],
}

// Not derived: a weight tensor's elements are too many to print.
impl<T: Element> fmt::Debug for StoredView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredView")
            .field("dtype", &T::DTYPE)
            .field("dims", &self.dims)
            .finish_non_exhaustive()
    }
}

impl<'a, T> StoredView<'a, T> {
    /// The elements, row-major.
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// The stored dims, outermost first.
    pub fn shape(&self) -> &'a [usize] {
        self.dims
    }
}

impl<T: Element> Lend for StoredView<'_, T> {
    type Elem = T;
    type Shape = AnyRank;
    type Notation = [T];
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        ArgParts {
            data: self.data,
            dims: Some(self.dims),
            layout_error: None,
            pitch: None,
        }
    }
}

impl<T: Element> LendPointee for StoredView<'_, T> {
    type Elem = T;
    type Shape = AnyRank;
    type Notation = [T];
    #[inline]
    fn lend(&self) -> ArgParts<'_, T> {
        Lend::lend(self)
    }
}

/// A tensor the writer can save: `&Tensor`, `TensorView`, `&TensorView` and
/// [`StoredView`], of any dtype and shape.
pub trait SaveTensor<'a> {
    /// The dtype, the dims and the elements as bytes in native order.
    fn save_parts(self) -> (DType, Vec<usize>, &'a [u8]);
}

/// The elements of `data` as bytes, native order.
fn element_bytes<T: Element>(data: &[T]) -> &[u8] {
    // SAFETY: `T` is one of the 13 `Element` types (sealed): integers, floats, `half`'s
    // `f16`/`bf16` (`repr(transparent)` over `u16`) and `bool`, none with padding or
    // uninitialised bytes, so the `size_of_val(data)` bytes at `data`'s start are
    // initialised `u8`s (alignment 1) and borrow `data` for its lifetime.
    unsafe { core::slice::from_raw_parts(data.as_ptr().cast::<u8>(), core::mem::size_of_val(data)) }
}

impl<'a, T: Element, S: Shape> SaveTensor<'a> for &'a Tensor<T, S> {
    fn save_parts(self) -> (DType, Vec<usize>, &'a [u8]) {
        (
            T::DTYPE,
            self.shape().to_vec(),
            element_bytes(self.as_slice()),
        )
    }
}

impl<'a, T: Element, S: Shape> SaveTensor<'a> for TensorView<'a, T, S> {
    fn save_parts(self) -> (DType, Vec<usize>, &'a [u8]) {
        (
            T::DTYPE,
            self.dims.as_ref().to_vec(),
            element_bytes(self.data),
        )
    }
}

impl<'a, T: Element, S: Shape> SaveTensor<'a> for &'a TensorView<'_, T, S> {
    fn save_parts(self) -> (DType, Vec<usize>, &'a [u8]) {
        (
            T::DTYPE,
            self.dims.as_ref().to_vec(),
            element_bytes(self.data),
        )
    }
}

impl<'a, T: Element> SaveTensor<'a> for StoredView<'a, T> {
    fn save_parts(self) -> (DType, Vec<usize>, &'a [u8]) {
        (T::DTYPE, self.dims.to_vec(), element_bytes(self.data))
    }
}

/// Writes tensors to a safetensors file: `SafetensorsWriter::new().tensor("y", &y).write(path)`.
///
/// The layout is the safetensors crate's own (tensors sorted by decreasing dtype alignment,
/// then by name; the header padded to 8 bytes), so every tensor of the file is aligned for
/// its dtype and [`SafetensorsFile::tensor`] reads it in place. The tensors are borrowed until
/// the file is written; nothing is copied but into the file.
#[derive(Default)]
pub struct SafetensorsWriter<'a> {
    tensors: Vec<Entry<'a>>,
}

/// A tensor to write: its name, dtype, dims and elements as native-order bytes.
type Entry<'a> = (String, DType, Vec<usize>, &'a [u8]);

impl fmt::Debug for SafetensorsWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.tensors.iter().map(|t| t.0.as_str()).collect();
        f.debug_struct("SafetensorsWriter")
            .field("tensors", &names)
            .finish()
    }
}

impl<'a> SafetensorsWriter<'a> {
    /// A writer with no tensors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tensor` under `name` (two of one name are an `Err` when written).
    #[must_use]
    pub fn tensor(mut self, name: impl Into<String>, tensor: impl SaveTensor<'a>) -> Self {
        let (dtype, dims, bytes) = tensor.save_parts();
        self.tensors.push((name.into(), dtype, dims, bytes));
        self
    }

    /// The header (with its length in front) and the tensors in file order.
    fn layout(&self) -> Result<(Vec<u8>, Vec<usize>), SafetensorsError> {
        let mut order: Vec<usize> = (0..self.tensors.len()).collect();
        order.sort_by(|&a, &b| {
            let (ta, tb) = (&self.tensors[a], &self.tensors[b]);
            stored_dtype(tb.1)
                .cmp(&stored_dtype(ta.1))
                .then_with(|| ta.0.cmp(&tb.0))
        });
        if let Some(pair) = order
            .windows(2)
            .find(|w| self.tensors[w[0]].0 == self.tensors[w[1]].0)
        {
            return Err(SafetensorsError::DuplicateName(
                self.tensors[pair[0]].0.clone(),
            ));
        }
        let mut offset = 0;
        let infos: Vec<(String, TensorInfo)> = order
            .iter()
            .map(|&i| {
                let (name, dtype, dims, bytes) = &self.tensors[i];
                let info = TensorInfo {
                    dtype: stored_dtype(*dtype),
                    shape: dims.clone(),
                    data_offsets: (offset, offset + bytes.len()),
                };
                offset += bytes.len();
                (name.clone(), info)
            })
            .collect();
        let format = |e: &dyn fmt::Display| SafetensorsError::Format {
            file: "<writer>".to_string(),
            reason: e.to_string(),
        };
        let metadata = Metadata::new(None, infos).map_err(|e| format(&e))?;
        let mut header = serde_json::to_vec(&metadata).map_err(|e| format(&e))?;
        header.resize(header.len().next_multiple_of(N_LEN), b' ');
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&header);
        Ok((out, order))
    }

    /// Writes the file to `out`.
    pub fn write_to(&self, out: &mut impl Write) -> Result<(), std::io::Error> {
        let (header, order) = self
            .layout()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        out.write_all(&header)?;
        for i in order {
            let (_, dtype, _, bytes) = &self.tensors[i];
            out.write_all(&little_endian(bytes, dtype_size(*dtype)))?;
        }
        Ok(())
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SafetensorsError> {
        self.layout()?;
        let mut out = Vec::new();
        self.write_to(&mut out)
            .map_err(|e| SafetensorsError::Format {
                file: "<writer>".to_string(),
                reason: e.to_string(),
            })?;
        Ok(out)
    }

    /// Writes the file at `path`: into a new file beside it, renamed over `path` once
    /// complete, so that a mapped [`SafetensorsFile`] of `path` keeps its (old) contents and
    /// a failed write leaves `path` as it was. (On Windows, which refuses to replace a file
    /// that is mapped, that case is an `Io` error instead.)
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), SafetensorsError> {
        let path = path.as_ref();
        self.layout()?;
        let name = path.file_name().map_or_else(
            || "safetensors".into(),
            |n| n.to_string_lossy().into_owned(),
        );
        // Unique per process and call, so that concurrent writes never share a temporary.
        static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = path.with_file_name(format!(".{name}.{}-{call}.tmp", std::process::id()));
        let io = |source| SafetensorsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let result = (|| {
            let mut file = std::io::BufWriter::new(std::fs::File::create(&temp)?);
            self.write_to(&mut file)?;
            file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
            std::fs::rename(&temp, path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result.map_err(io)
    }
}

fn dtype_size(dtype: DType) -> usize {
    match dtype {
        DType::Bool | DType::U8 | DType::I8 => 1,
        DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
        DType::U32 | DType::I32 | DType::F32 => 4,
        DType::U64 | DType::I64 | DType::F64 => 8,
    }
}

/// Native-order element bytes as little-endian ones (a copy only on big-endian targets).
fn little_endian(bytes: &[u8], size: usize) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "big") && size > 1 {
        let mut swapped = bytes.to_vec();
        swapped.chunks_exact_mut(size).for_each(<[u8]>::reverse);
        Cow::Owned(swapped)
    } else {
        Cow::Borrowed(bytes)
    }
}

#[cfg(test)]
mod tests;
