//! Nests cut for threads: a large flat loop into rows, a reduction over the rows into
//! partial rows and a combine, kept columns into blocks.

use std::collections::HashMap;

use crate::ir::{
    BufferRef, Level, LoopNest, NodeId, Offset, Operand, Sink, Size, Temp, Value, ValueSource,
};

/// Kernels with fewer elements than this run on the calling thread only: below it the
/// cost of waking threads exceeds the work (see BENCHMARKS.md).
pub const PARALLEL_MIN_ELEMENTS: usize = 1 << 18;

/// Rows of a ragged flat loop (a symbolic extent): a multiple of the lane count, and a
/// divisor of the task size.
pub(super) const RAGGED_BLOCK: usize = 1 << 16;

/// A large flat loop becomes rows of `B` (a multiple of the lane count dividing the
/// length), so it can be split across threads. A flat loop whose extent is symbolic
/// becomes rows of `RAGGED_BLOCK` with a shorter last row, whatever its size: whether
/// to split is decided at run time.
pub(super) fn split_flat_loop(nest: &mut LoopNest, blocks: &mut Vec<(String, Size, usize)>) {
    if !nest.outer.is_empty() || nest.scan.is_some() || nest.matmul.is_some() {
        return;
    }
    let Some(inner) = nest.inner.as_static() else {
        // `#` cannot start a dim name, so this never meets a user's name.
        let name = format!("#blocks{}", blocks.len());
        blocks.push((name.clone(), nest.inner.clone(), RAGGED_BLOCK));
        nest.ragged = Some(nest.inner.clone());
        nest.outer = vec![Size {
            coeff: 1,
            names: vec![name],
        }];
        for op in &mut nest.operands {
            op.outer_strides = vec![op.inner_stride.mul(&Size::lit(RAGGED_BLOCK))];
        }
        nest.inner = Size::lit(RAGGED_BLOCK);
        return;
    };
    if inner < PARALLEL_MIN_ELEMENTS {
        return;
    }
    let Some(block) = (12..=16)
        .rev()
        .map(|b| 1usize << b)
        .find(|b| inner % b == 0)
    else {
        return;
    };
    nest.outer = vec![Size::lit(inner / block)];
    for op in &mut nest.operands {
        op.outer_strides = vec![op.inner_stride.mul(&Size::lit(block))];
    }
    nest.inner = Size::lit(block);
}

/// Partial accumulator rows of a reduction over outer axes (`split_reduced_rows`): at most
/// this many, fixed by the shape alone, so the order of accumulation (and every rounding)
/// is the same whatever the number of threads.
pub(super) const PARTIAL_ROWS: usize = 8;

/// Elements of all partial rows together at most (64 Ki: 512 KiB of `f64` accumulators,
/// within L2): wider rows are split by columns instead (`split_kept_columns`).
pub(super) const PARTIAL_ELEMENTS: usize = 1 << 16;

/// A large reduction over outer axes that keeps its inner axis (`sum(x, axis = 0)` on
/// `f32[4096, 1024]`): every row adds into the same accumulator row. Its rows are cut into
/// `P` consecutive blocks, each accumulated into a partial row of its own (a temp of `P`
/// rows, which stage planning splits into tasks like any rows), and a second, small nest
/// then combines the `P` partial rows, in order, into the accumulator. Each task reads whole
/// rows, contiguous in memory. (Cutting the columns instead, `split_kept_columns`, has each
/// thread read part of every row: with 4 KiB rows both cores' prefetchers fetch each other's
/// halves and two threads ran 1.33x one; this split ran 1.9x, BENCHMARKS.md "Two threads,
/// reductions over an outer axis".) Accumulation order is unspecified (docs/language.md), and `P`
/// depends only on the shape, so results do not depend on the number of threads.
/// Returns the combining nest, to run right after `nest`. Arg-max/arg-min keep the column
/// split (their partials would need the index too).
pub(super) fn split_reduced_rows(
    nest: &mut LoopNest,
    temps: &mut Vec<Temp>,
    temp_of: &HashMap<NodeId, usize>,
) -> Option<LoopNest> {
    let Sink::Reduce {
        kind,
        best: None,
        index: None,
        ..
    } = nest.sink
    else {
        return None;
    };
    kind.combine()?;
    let (acc, columns) = shared_accumulator_row(nest)?;
    let acc_op = &nest.operands[acc];
    let BufferRef::Temp(acc_temp) = acc_op.buffer else {
        return None;
    };
    let first_rows = nest.outer[0].as_static()?;
    let work = nest
        .outer
        .iter()
        .try_fold(columns, |w, e| Some(w * e.as_static()?))?;
    if !acc_op.base.is_zero()
        || !temps[acc_temp].len.is_lit(columns)
        || work < PARALLEL_MIN_ELEMENTS
    {
        return None;
    }
    // `P` divides the outermost extent and leaves every partial row at least 16 rows.
    let partials = [PARTIAL_ROWS, PARTIAL_ROWS / 2, 2].into_iter().find(|&p| {
        first_rows % p == 0 && work / columns / p >= 16 && p * columns <= PARTIAL_ELEMENTS
    })?;
    // The reduction node whose accumulator this is: the combining nest's values have its dtype.
    let node = *temp_of.iter().find(|(_, &t)| t == acc_temp)?.0;
    temps.push(Temp {
        dtype: temps[acc_temp].dtype,
        len: Size::lit(partials * columns),
        init: kind.identity(),
        overwritten: false,
        row_local: None,
        gemm_block: false,
    });
    let partial_temp = temps.len() - 1;

    // The outermost loop of `first_rows` becomes `partials × (first_rows / partials)`.
    let rows_per_partial = first_rows / partials;
    nest.outer[0] = Size::lit(rows_per_partial);
    nest.outer.insert(0, Size::lit(partials));
    for (k, op) in nest.operands.iter_mut().enumerate() {
        if k == acc {
            op.buffer = BufferRef::Temp(partial_temp);
            op.outer_strides.insert(0, Offset::lit(columns as i128));
        } else {
            let stride = op.outer_strides[0].mul(&Size::lit(rows_per_partial));
            op.outer_strides.insert(0, stride);
        }
    }

    Some(LoopNest {
        scan: None,
        matmul: None,
        outer: vec![Size::lit(partials)],
        inner: Size::lit(columns),
        ragged: None,
        operands: vec![
            Operand {
                buffer: BufferRef::Temp(partial_temp),
                base: Offset::zero(),
                outer_strides: vec![Offset::lit(columns as i128)],
                inner_stride: Offset::lit(1),
            },
            Operand {
                buffer: BufferRef::Temp(acc_temp),
                base: Offset::zero(),
                outer_strides: vec![Offset::zero()],
                inner_stride: Offset::lit(1),
            },
        ],
        values: vec![Value {
            node,
            source: ValueSource::Load { operand: 0 },
            level: Level::Inner,
        }],
        sink: Sink::Reduce {
            kind,
            acc: 1,
            value: 0,
            best: None,
            index: None,
            stores: Vec::new(),
            sibling: None,
        },
    })
}

/// A reduction over outer axes whose accumulator is one contiguous row that every outer row
/// adds into (`sum(x, axis = 0)`): its accumulator operand and the (literal) row length.
/// What both ways of splitting such a reduction across threads start from.
pub(super) fn shared_accumulator_row(nest: &LoopNest) -> Option<(usize, usize)> {
    let Sink::Reduce { acc, .. } = nest.sink else {
        return None;
    };
    let acc_op = &nest.operands[acc];
    let columns = nest.inner.as_static()?;
    let shared = !nest.outer.is_empty()
        && nest.ragged.is_none()
        && acc_op.inner_stride.is_lit(1)
        && acc_op.outer_strides.iter().all(Offset::is_zero);
    shared.then_some((acc, columns))
}

/// A large reduction over outer axes that keeps its inner axis, when its rows cannot be
/// cut into partial rows (`split_reduced_rows`): every row adds into the same accumulator
/// row, so its rows cannot be split across
/// threads. Its inner axis is cut into column blocks and the block index becomes the
/// outermost loop: each block's accumulators are then a row of their own, which stage
/// planning splits into tasks like any rows. The order in which one accumulator sees the
/// rows is unchanged.
pub(super) fn split_kept_columns(nest: &mut LoopNest) {
    let Some((_, columns)) = shared_accumulator_row(nest) else {
        return;
    };
    let work = nest.outer.iter().fold(Some(columns), |w, e| {
        w.zip(e.as_static()).map(|(w, e)| w * e)
    });
    // A symbolic row count: whether to split is decided at run time (`Tasks::work`).
    if work.is_some_and(|w| w < PARALLEL_MIN_ELEMENTS) {
        return;
    }
    // Blocks of a power of two of at least 64 columns (whole SIMD chunks), at least two.
    let Some(block) = (6..=12)
        .rev()
        .map(|b| 1usize << b)
        .find(|&b| columns % b == 0 && columns / b >= 2)
    else {
        return;
    };
    nest.outer.insert(0, Size::lit(columns / block));
    for op in &mut nest.operands {
        let stride = op.inner_stride.mul(&Size::lit(block));
        op.outer_strides.insert(0, stride);
    }
    nest.inner = Size::lit(block);
}
