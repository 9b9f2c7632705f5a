//! The sizes call entry checks before a kernel runs (`checked_sizes`), and which of them an
//! argument's own length already bounds (`bounded_by`).

use crate::ir::{Kernel, Size};

/// The sizes call entry checks before a kernel runs (`check_entry_sizes`: at most
/// `MAX_ELEMENTS`, 2^53, with no overflow on the way), each once. Empty for a graph with
/// only literal dims, whose kernel then cannot fail (the checker holds every literal value
/// to that bound).
/// - What the kernel allocates: every temp with a name in its length (whole, or a GEMM
///   block of `ir::gemm_block_rows` of its rows) and every right operand packed once per stage
///   (`k · n`). A name bound from an empty argument (`[2^62, 0]`) may be any `usize`, so
///   even one name can ask for more bytes than an allocation may hold, which panicked in
///   `ScratchVec` (issue 37, item 2); 2^53 elements of at most 8 bytes, padded by the
///   packing to at most 64 columns, stay far inside `isize::MAX` bytes.
/// - What it multiplies from several names (`coeff · A · C`: a nest's element count):
///   names from different arguments can multiply past `usize`. A size that the element
///   count of an argument or output (`args`) bounds so that its product cannot overflow
///   (`bounded_by`) is left out: call entry has checked that every argument's dims
///   multiply within `usize` where none of them is 0 (`bind_entry`), and the allocating form
///   has allocated its outputs (`graph_output`, whose element count fits) before the kernel
///   runs, so such a size's check could never fail.
pub(crate) fn checked_sizes(kernel: &Kernel, args: &[Size]) -> Vec<Size> {
    let mut sizes: Vec<Size> = Vec::new();
    let add = |size: Size, sizes: &mut Vec<Size>| {
        let internal = size.names.iter().any(|n| n.starts_with('#'));
        if size.as_static().is_none() && !internal && !sizes.contains(&size) {
            sizes.push(size);
        }
    };
    for (t, temp) in kernel.temps.iter().enumerate() {
        add(temp.len.clone(), &mut sizes);
        if let (true, Some(row)) = (temp.gemm_block, &temp.row_local) {
            // The product whose block it is (its output or its left operand).
            let product = kernel.nests.iter().find(|n| {
                n.matmul
                    .as_ref()
                    .is_some_and(|s| s.output == t || s.a.buffer == crate::ir::BufferRef::Temp(t))
            });
            let rows = product.map_or(crate::ir::GEMM_BLOCK_ROWS, crate::ir::gemm_block_rows);
            add(row.mul(&Size::lit(rows)), &mut sizes);
        }
    }
    for step in kernel.nests.iter().filter_map(|n| n.matmul.as_ref()) {
        add(step.k.mul(&step.n), &mut sizes);
    }
    let totals = kernel.nests.iter().map(|n| match &n.ragged {
        Some(total) => total.clone(),
        None => n.outer.iter().fold(n.inner.clone(), |acc, e| acc.mul(e)),
    });
    for size in totals {
        if (size.names.len() > 1 || size.coeff > 1)
            && !args.iter().any(|arg| bounded_by(&size, arg))
        {
            add(size, &mut sizes);
        }
    }
    sizes
}

/// Whether the kernel's product for `size`, `c · n1 · … · nk` left to right (`size_expr`),
/// cannot overflow given that `arg`'s dims were checked: `c · N ≤ c' · N · L` when
/// `0 < c ≤ c'`, the names `N` of `size` are among those of `arg` and each leftover name in
/// `L` is one of `N` (if a name of `N` is 0, `size` is 0; otherwise every name of `L` is at
/// least 1). `24 · B` is bounded by `24 · B` and `48 · B · B`, not by `24 · B · C` (`C` may
/// be 0 while `B` is huge).
///
/// Call entry's check of an argument (`checked_product`) is 0 as soon as one dim is 0,
/// whatever the others multiply to (a static shape `[0, 2^40, 2^40]`, whose `LEN` is 0), so
/// the product is known to fit only at its end: a partial product before its last factor
/// must be a single factor. That leaves `c · A` (if `A` is not 0, no dim of `arg` is, and
/// its product fits) and `A · B` with `c = 1` (`A` fits; `A · B` is 0 or fits); `2 · A · Z`
/// and `A · B · Z` stay checked (`2 · A` or `A · B` can overflow while `Z` is 0).
pub(super) fn bounded_by(size: &Size, arg: &Size) -> bool {
    if arg.coeff == 0 || size.coeff > arg.coeff {
        return false;
    }
    if size.names.len() + usize::from(size.coeff > 1) > 2 {
        return false;
    }
    let mut left = arg.names.clone();
    for n in &size.names {
        match left.iter().position(|m| m == n) {
            Some(at) => {
                left.remove(at);
            }
            None => return false,
        }
    }
    left.iter().all(|n| size.names.contains(n))
}

#[cfg(test)]
mod size_check_tests {
    use super::bounded_by;
    use crate::ir::Size;

    fn size(coeff: usize, names: &[&str]) -> Size {
        let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        names.sort();
        Size { coeff, names }
    }

    #[test]
    fn a_size_is_bounded_only_where_no_value_of_the_names_can_exceed_the_argument() {
        assert!(bounded_by(&size(24, &["B"]), &size(24, &["B"])));
        assert!(bounded_by(&size(24, &["B"]), &size(48, &["B"])));
        assert!(bounded_by(&size(1, &["B", "C"]), &size(3, &["B", "C"])));
        // Three factors: `2 · B` or `A · B` may overflow while the last name is 0 (the
        // argument's check says nothing of its other dims then).
        assert!(!bounded_by(&size(2, &["B", "C"]), &size(3, &["B", "C"])));
        assert!(!bounded_by(
            &size(1, &["A", "B", "Z"]),
            &size(1, &["A", "B", "Z"])
        ));
        assert!(!bounded_by(&size(2, &["A", "Z"]), &size(2, &["A", "Z"])));
        // A leftover name that `size` has too: 0 makes both 0, else it is at least 1.
        assert!(bounded_by(&size(24, &["B"]), &size(24, &["B", "B"])));
        assert!(!bounded_by(&size(48, &["B"]), &size(24, &["B"])));
        // `C` may be 0 while `B` is huge.
        assert!(!bounded_by(&size(24, &["B"]), &size(24, &["B", "C"])));
        assert!(!bounded_by(&size(1, &["A", "C"]), &size(1, &["A", "Z"])));
        assert!(!bounded_by(&size(1, &["A", "B"]), &size(8, &["A"])));
        assert!(!bounded_by(&size(2, &["B"]), &size(0, &[])));
    }
}
