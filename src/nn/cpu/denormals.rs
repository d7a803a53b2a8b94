//! Subnormal numbers kept out of the network's arithmetic. A net's
//! activations can fall below `f32::MIN_POSITIVE` (KaTrain's transformer
//! net makes many), and an Intel core takes about a hundred cycles for each
//! operation on such a number (an AMD core far fewer): on a 2-core Intel
//! Xeon KaTrain's net took 1,500 ms an evaluation with them and 150 ms
//! without. So every forward pass runs under [`FlushDenormals`]: the
//! processor treats subnormal inputs as zero and writes zero for subnormal
//! results (MXCSR's DAZ and FTZ bits on x86-64, FPCR's FZ bit on ARM64, as
//! KataGo's Eigen backend and every inference library run), and the
//! calling thread's mode is put back afterwards, so nothing outside the
//! network sees it. The values lost are below 1.2·10⁻³⁸: nothing a net's
//! outputs can tell apart.

/// The flush mode for as long as it lives, on the thread that made it.
pub struct FlushDenormals {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    saved: Register,
}

#[cfg(target_arch = "x86_64")]
type Register = u32;
#[cfg(target_arch = "aarch64")]
type Register = u64;

/// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
#[cfg(target_arch = "x86_64")]
const FLUSH_BITS: Register = (1 << 15) | (1 << 6);
/// FPCR's flush-to-zero (bit 24), which on ARM64 covers inputs too.
#[cfg(target_arch = "aarch64")]
const FLUSH_BITS: Register = 1 << 24;

#[cfg(target_arch = "x86_64")]
fn read() -> Register {
    let mut value: u32 = 0;
    // SAFETY: `stmxcsr` stores the 32-bit MXCSR at the address given, a
    // live local; SSE is part of x86-64.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags));
    }
    value
}

#[cfg(target_arch = "x86_64")]
fn write(value: Register) {
    // SAFETY: `ldmxcsr` loads MXCSR from a live local; only the rounding
    // and flush bits kosumi read before are changed, no exception unmasked.
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, preserves_flags, readonly));
    }
}

#[cfg(target_arch = "aarch64")]
fn read() -> Register {
    let value: u64;
    // SAFETY: reading FPCR has no side effect.
    unsafe {
        std::arch::asm!("mrs {}, fpcr", out(reg) value, options(nomem, nostack, preserves_flags));
    }
    value
}

#[cfg(target_arch = "aarch64")]
fn write(value: Register) {
    // SAFETY: FPCR takes back a value read from it with the FZ bit changed.
    unsafe {
        std::arch::asm!("msr fpcr, {}", in(reg) value, options(nomem, nostack, preserves_flags));
    }
}

impl FlushDenormals {
    /// Sets the flush mode on this thread until the value is dropped.
    #[allow(clippy::new_without_default)]
    pub fn new() -> FlushDenormals {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            let saved = read();
            if saved & FLUSH_BITS != FLUSH_BITS {
                write(saved | FLUSH_BITS);
            }
            FlushDenormals { saved }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        if self.saved & FLUSH_BITS != FLUSH_BITS {
            write(self.saved);
        }
    }
}

/// Whether this thread flushes subnormal numbers now (always `false` on
/// a processor kosumi sets no mode on): what the tests read in each
/// evaluating thread.
#[cfg(test)]
pub fn flushing() -> bool {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    return read() & FLUSH_BITS == FLUSH_BITS;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    false
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// The smallest normal number halved (a subnormal result), and a
    /// subnormal input times one.
    fn subnormal_arithmetic() -> (f32, f32) {
        (
            black_box(f32::MIN_POSITIVE) * black_box(0.5),
            black_box(f32::MIN_POSITIVE / 4.0) * black_box(1.0),
        )
    }

    #[test]
    fn subnormals_flush_inside_and_come_back_after() {
        std::thread::spawn(|| {
            // A new thread starts in the IEEE mode.
            assert!(!flushing());
            let (result, input) = subnormal_arithmetic();
            assert!(result > 0.0 && input > 0.0);
            {
                let _flush = FlushDenormals::new();
                assert!(flushing());
                assert_eq!(subnormal_arithmetic(), (0.0, 0.0));
                // Nested, the inner one leaves the outer's mode alone.
                drop(FlushDenormals::new());
                assert!(flushing());
            }
            assert!(!flushing());
            assert_eq!(subnormal_arithmetic(), (result, input));
        })
        .join()
        .unwrap();
    }
}
