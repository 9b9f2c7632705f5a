//! Kernel outputs against the interpreter's: exact elements bit for bit (any NaN for a
//! NaN), ranges by containment (−0 = +0), `Any` not compared.

use crate::inputs::HostTensor;
use crate::interp::T;
use crate::value::E;

/// How many elements were checked, and how.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub exact: u64,
    pub ranged: u64,
    pub skipped: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.exact += o.exact;
        self.ranged += o.ranged;
        self.skipped += o.skipped;
    }
}

/// Mismatches of output `k` (at most a few, described).
pub fn compare(k: usize, got: &HostTensor, want: &T, stats: &mut Stats) -> Vec<String> {
    let mut bad = Vec::new();
    if got.dtype != want.dtype || got.dims != want.dims {
        bad.push(format!(
            "output {k}: {}{:?} from the kernel, {}{:?} from the interpreter",
            got.dtype, got.dims, want.dtype, want.dims
        ));
        return bad;
    }
    for (i, &w) in want.data.iter().enumerate() {
        let g = got.element(i);
        let ok = match (w, g) {
            (E::Any, _) => {
                stats.skipped += 1;
                true
            }
            (E::B(a), E::B(b)) => {
                stats.exact += 1;
                a == b
            }
            (E::I(a), E::I(b)) => {
                stats.exact += 1;
                a == b
            }
            (E::F(a), E::F(b)) => {
                stats.exact += 1;
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (E::R { lo, hi, nan }, E::F(b)) => {
                stats.ranged += 1;
                if b.is_nan() {
                    nan
                } else {
                    lo <= b && b <= hi
                }
            }
            _ => false,
        };
        if !ok && bad.len() < 4 {
            bad.push(format!(
                "output {k} element {i} (index {:?}): kernel {g:?}, interpreter {w:?}",
                unflatten(i, &want.dims)
            ));
        }
    }
    bad
}

fn unflatten(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for a in (0..dims.len()).rev() {
        if dims[a] > 0 {
            idx[a] = i % dims[a];
            i /= dims[a];
        }
    }
    idx
}
