//! A criterion measurement of this process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`) instead
//! of wall time: on a machine shared with other work, the time a benchmark spends
//! descheduled is not counted (what it loses to others' cache traffic still is). Meant for
//! one-thread cases (a rayon pool's worker and the waiting caller sum to the worker's time,
//! the caller sleeps); with several threads it sums their times, so those use wall time.
//! Included by path from benches that need it (Linux only).

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use std::time::Duration;

/// This process's CPU time.
pub fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Criterion's measurement by [`process_cpu_time`], shown like wall time.
pub struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        process_cpu_time()
    }
    fn end(&self, start: Duration) -> Duration {
        process_cpu_time().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}
