//! Stage planning: which consecutive nests share a row loop (softmax's passes, a product with
//! its prologue and epilogue), which temps hold one row, and how rows split into tasks.

use crate::ir::{BufferRef, LoopNest, Offset, Size, Stage, Tasks, Temp};

use super::splits::PARALLEL_MIN_ELEMENTS;

/// Whether the product at `at` can run block by block with the nests `start..end` around
/// it: more than itself; its product and (if a nest of the run writes it) its left operand
/// read by no nest outside the run; no other temp written before it read at or after it
/// (per-row temps do not survive until the block's second pass).
pub(super) fn product_fuses(nests: &[LoopNest], start: usize, end: usize, at: usize) -> bool {
    let step = nests[at].matmul.as_ref().expect("a product");
    if end == start + 1 {
        return false;
    }
    let reads = |k: usize, b: &BufferRef| nests[k].operands.iter().any(|o| o.buffer == *b);
    let product = BufferRef::Temp(step.output);
    let left = step.a.buffer.clone();
    let before: Vec<BufferRef> = nests[start..at]
        .iter()
        .flat_map(|n| {
            n.sink
                .written()
                .into_iter()
                .map(|o| n.operands[o].buffer.clone())
        })
        .collect();
    let read_outside =
        |b: &BufferRef| (0..nests.len()).any(|k| !(start..end).contains(&k) && reads(k, b));
    if read_outside(&product) || (before.contains(&left) && read_outside(&left)) {
        return false;
    }
    before
        .iter()
        .filter(|b| matches!(b, BufferRef::Temp(_)) && **b != left)
        .all(|b| !(at..end).any(|k| reads(k, b)))
}

/// Temps that a row stage writes and nothing outside it reads hold one row at a time.
pub(super) fn mark_row_local(temps: &mut [Temp], nests: &[LoopNest], stages: &[Stage]) {
    for stage in stages {
        let Some(rows) = &stage.row_loop else {
            continue;
        };
        let inside = stage.first..stage.first + stage.count;
        for nest in &nests[inside.clone()] {
            for o in nest.sink.written() {
                let BufferRef::Temp(t) = nest.operands[o].buffer else {
                    continue;
                };
                let read_outside = nests.iter().enumerate().any(|(k, n)| {
                    !inside.contains(&k)
                        && n.operands.iter().any(|op| op.buffer == BufferRef::Temp(t))
                });
                if !read_outside {
                    if let Some(row) = temps[t].len.checked_div(rows) {
                        temps[t].row_local = Some(row);
                    }
                }
            }
        }
    }
}

/// Elements per task: large enough to amortise scheduling, small enough to balance.
pub(super) const TASK_ELEMENTS: usize = 1 << 16;

/// Greedy runs of consecutive nests that can share their outermost loop: each iterates
/// the same outermost extent E, and every temp written in the run is addressed row by
/// row (outermost stride = len / E), so row `i` of a later nest reads only what row `i`
/// of an earlier nest wrote. A run is also split into tasks when it is large and every
/// buffer it writes is addressed row by row; with symbolic sizes "large" is decided at
/// run time.
pub(super) fn plan_stages(temps: &[Temp], output_lens: &[Size], nests: &[LoopNest]) -> Vec<Stage> {
    let buffers = BufferLens { temps, output_lens };
    let mut stages = Vec::new();
    let mut start = 0;
    while start < nests.len() {
        // More than one row, or a symbolic count of rows.
        let rows = nests[start]
            .outer
            .first()
            .filter(|e| e.as_static().is_none_or(|n| n > 1))
            .cloned();
        let mut end = start + 1;
        // A run holds at most one product: the nests before it compute its left operand
        // (a prologue: they run through a block of rows, then the GEMM computes that block,
        // then the nests after it run through the block's product rows).
        let mut product_at = nests[start].matmul.is_some().then_some(start);
        if let Some(rows) = &rows {
            while end < nests.len() && nests[end].outer.first() == Some(rows) {
                if nests[end].matmul.is_some() && product_at.is_some() {
                    break;
                }
                let run = &nests[start..=end];
                let temps_written: Vec<BufferRef> = written(run)
                    .into_iter()
                    .filter(|b| matches!(b, BufferRef::Temp(_)))
                    .collect();
                if !run.iter().all(|n| {
                    temps_written
                        .iter()
                        .all(|b| buffers.row_len(n, b, rows).is_some())
                }) {
                    break;
                }
                if nests[end].matmul.is_some() {
                    product_at = Some(end);
                }
                end += 1;
            }
        }
        // A product fuses with its neighbours only when what crosses the GEMM is its left
        // operand (before) and the product (after), each read only inside the run.
        if let Some(at) = product_at {
            if !product_fuses(nests, start, end, at) {
                if at == start {
                    stages.push(Stage {
                        first: start,
                        count: 1,
                        row_loop: None,
                        tasks: None,
                        pipelined: None,
                    });
                    start += 1;
                    continue;
                }
                end = at;
            }
        }
        let run = &nests[start..end];
        let work: Vec<Size> = run
            .iter()
            .map(|n| n.outer.iter().fold(n.inner.clone(), |acc, e| acc.mul(e)))
            .collect();
        let static_work: Option<usize> = work.iter().map(Size::as_static).sum();
        let large = match static_work {
            Some(w) => w >= PARALLEL_MIN_ELEMENTS,
            None => true,
        };
        let tasks = rows
            .as_ref()
            .filter(|_| large)
            .and_then(|rows| run_tasks(&buffers, run, rows, static_work, &work));
        let row_loop = if end - start > 1 || tasks.is_some() {
            rows
        } else {
            None
        };
        stages.push(Stage {
            first: start,
            count: end - start,
            row_loop,
            tasks,
            pipelined: None,
        });
        start = end;
    }
    stages
}

/// The lengths of a stage's buffers: its temps' and the outputs'.
struct BufferLens<'a> {
    temps: &'a [Temp],
    output_lens: &'a [Size],
}

impl BufferLens<'_> {
    fn buffer_len(&self, b: &BufferRef) -> Option<Size> {
        match b {
            BufferRef::Temp(t) => Some(self.temps[*t].len.clone()),
            BufferRef::Output(o) => Some(self.output_lens[*o].clone()),
            _ => None,
        }
    }

    /// The elements per row of `buffer` if every operand of `nest` on it is addressed row
    /// by row over `rows`. A ragged flat loop writes rows of its literal block.
    fn row_len(&self, nest: &LoopNest, buffer: &BufferRef, rows: &Size) -> Option<Size> {
        let len = self.buffer_len(buffer)?;
        let row = match &nest.ragged {
            Some(total) if *total == len => nest.inner.clone(),
            Some(_) => return None,
            None => len.checked_div(rows)?,
        };
        // A region of a `pad`/`concat`/`tile` writes from a base: not row by row.
        // A `gather` reads any row of its data: not row by row either.
        let row_stride = Offset::size(&row);
        nest.operands
            .iter()
            .enumerate()
            .filter(|(_, o)| o.buffer == *buffer)
            .all(|(k, o)| {
                o.base.is_zero()
                    && o.outer_strides.first() == Some(&row_stride)
                    && !nest.gathered(k)
            })
            .then_some(row)
    }
}

/// The buffers a run of nests writes, each once.
fn written(run: &[LoopNest]) -> Vec<BufferRef> {
    let mut out: Vec<BufferRef> = Vec::new();
    for nest in run {
        for o in nest.sink.written() {
            let b = nest.operands[o].buffer.clone();
            if !out.contains(&b) {
                out.push(b);
            }
        }
    }
    out
}

/// The tasks of a large run over `rows` rows: every buffer it writes cut into chunks of
/// rows (the same row length in every nest), and how many rows a task takes; `None` when
/// a buffer is not written row by row (or has empty rows): the stage runs on one thread.
fn run_tasks(
    buffers: &BufferLens,
    run: &[LoopNest],
    rows: &Size,
    static_work: Option<usize>,
    work: &[Size],
) -> Option<Tasks> {
    let bufs = written(run);
    let chunked: Option<Vec<(BufferRef, Size)>> = bufs
        .iter()
        .map(|b| {
            let mut lens = run.iter().map(|n| buffers.row_len(n, b, rows));
            let first = lens.next()??;
            lens.all(|l| l.as_ref() == Some(&first))
                .then_some((b.clone(), first))
        })
        .collect();
    let chunked = chunked?;
    // A buffer with rows of 0 elements cannot be cut into chunks of rows (and
    // `zip` would stop at it); such a stage runs on one thread.
    if chunked.iter().any(|(_, row)| row.is_zero()) {
        return None;
    }
    // A product's tasks take whole GEMM blocks (a right operand with batch dims
    // is packed again by every block; one without is packed once per stage).
    let least = run
        .iter()
        .find(|n| n.matmul.is_some())
        .map_or(1, crate::ir::gemm_block_rows);
    let rows_per_task = match (static_work, rows.as_static()) {
        (Some(w), Some(r)) => Some((TASK_ELEMENTS / (w / r).max(1)).max(least)),
        _ => None,
    };
    Some(Tasks {
        rows_per_task,
        work: work.to_vec(),
        chunked,
    })
}
