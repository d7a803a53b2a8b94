//! The memory a loaded net's packed weights live in. A forward pass reads
//! every weight once, tens of megabytes spread over thousands of 4 KB
//! pages, more than the address translation caches hold, so each panel a
//! product starts on costs a walk of the page tables (two nested walks in
//! a virtual machine). The weights are therefore laid one after another
//! in large regions, aligned to a huge page, which the operating system is
//! asked to back with huge pages (`madvise(MADV_HUGEPAGE)` on Linux, where
//! transparent huge pages are on or left to the program; elsewhere the
//! regions are ordinary memory). A region lives while any matrix in it
//! does; new matrices fill the region last opened while it lives.

use std::alloc::Layout;
use std::sync::{Arc, Mutex, Weak};

/// A huge page on x86-64 and most ARM64 Linux kernels: a region's
/// alignment and the unit of its size.
const HUGE_PAGE: usize = 2 << 20;
/// A region's size unless a matrix needs more: a large net's weights fill
/// a few.
const REGION_BYTES: usize = 32 << 20;
/// Where each matrix starts within a region: a cache line.
const LINE: usize = 64;

/// Memory from the allocator, aligned to a huge page, its bytes written
/// once, a range at a time by the one [`Settled`] matrix handed that range.
struct Region {
    start: *mut u8,
    layout: Layout,
}

// SAFETY (both): a region is a plain allocation; each of its ranges is
// written only while being handed out (under `FILLING`'s lock, before any
// other thread can see it) and only read after.
unsafe impl Send for Region {}
unsafe impl Sync for Region {}

impl Region {
    /// A region of at least `bytes`, or none where the allocator has none.
    fn new(bytes: usize) -> Option<Region> {
        let layout = Layout::from_size_align(bytes.next_multiple_of(HUGE_PAGE), HUGE_PAGE).ok()?;
        // SAFETY: the layout's size is at least one huge page.
        let start = unsafe { std::alloc::alloc(layout) };
        if start.is_null() {
            return None;
        }
        advise_huge_pages(start, layout.size());
        Some(Region { start, layout })
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: allocated in `Region::new` with this layout.
        unsafe { std::alloc::dealloc(self.start, self.layout) }
    }
}

/// Asks Linux to back `len` bytes from `start` (aligned to a huge page)
/// with huge pages as they are first touched. A refusal (transparent huge
/// pages off) leaves ordinary pages, which work the same.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: *mut u8, len: usize) {
    // SAFETY: the range is one allocation of ours; the advice changes no
    // contents and none of it has been touched yet.
    unsafe { libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: *mut u8, _len: usize) {}

/// The region being filled and how many of its bytes are taken; held
/// weakly, so that a region whose matrices are all dropped is freed.
static FILLING: Mutex<Option<(Weak<Region>, usize)>> = Mutex::new(None);

/// A matrix's values laid in a region, read-only.
pub(super) struct Settled<T> {
    region: Arc<Region>,
    /// Where in the region the values start, in bytes.
    at: usize,
    len: usize,
    values: std::marker::PhantomData<T>,
}

impl<T: Copy> Settled<T> {
    /// `values` copied into the region being filled (a new one where it
    /// is gone or full), or none where no memory could be had.
    fn new(values: &[T]) -> Option<Settled<T>> {
        assert!(
            std::mem::align_of::<T>() <= LINE,
            "values aligned within a line"
        );
        let bytes = std::mem::size_of_val(values);
        let mut filling = FILLING.lock().unwrap_or_else(|e| e.into_inner());
        let open = filling
            .as_ref()
            .and_then(|(region, used)| Some((region.upgrade()?, *used)))
            .filter(|(region, used)| used + bytes <= region.layout.size());
        let (region, at) = match open {
            Some(open) => open,
            None => (Arc::new(Region::new(bytes.max(REGION_BYTES))?), 0),
        };
        // SAFETY: `at + bytes` is within the region (filtered above, or a
        // new region of at least `bytes`), no other matrix holds those
        // bytes, and `T` is aligned there (`at` a multiple of a line).
        unsafe {
            let start = region.start.add(at).cast::<T>();
            std::ptr::copy_nonoverlapping(values.as_ptr(), start, values.len());
        }
        *filling = Some((Arc::downgrade(&region), (at + bytes).next_multiple_of(LINE)));
        Some(Settled {
            region,
            at,
            len: values.len(),
            values: std::marker::PhantomData,
        })
    }

    fn as_slice(&self) -> &[T] {
        // SAFETY: `len` values of `T` written at `at` in `Settled::new`
        // and never after, in a region kept alive by `self.region`.
        unsafe { std::slice::from_raw_parts(self.region.start.add(self.at).cast(), self.len) }
    }
}

/// A packed matrix's values: its own while being written, then settled
/// among the net's other weights.
pub(super) enum WeightMemory<T> {
    Own(Vec<T>),
    Settled(Settled<T>),
}

impl<T> Default for WeightMemory<T> {
    fn default() -> Self {
        WeightMemory::Own(Vec::new())
    }
}

impl<T: Copy> WeightMemory<T> {
    /// Moves the values into a region of huge pages (where any memory is
    /// to be had; else they stay where they are): for a net's weights,
    /// written once and read on every pass.
    pub(super) fn settle(&mut self) {
        if let WeightMemory::Own(values) = self
            && !values.is_empty()
            && let Some(settled) = Settled::new(values)
        {
            *self = WeightMemory::Settled(settled);
        }
    }

    /// The values to write: this one's own (copied out of their region
    /// first where they had been settled).
    pub(super) fn own(&mut self) -> &mut Vec<T> {
        if let WeightMemory::Settled(settled) = self {
            *self = WeightMemory::Own(settled.as_slice().to_vec());
        }
        match self {
            WeightMemory::Own(values) => values,
            WeightMemory::Settled(_) => unreachable!("made its own above"),
        }
    }
}

impl<T: Copy> std::ops::Deref for WeightMemory<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            WeightMemory::Own(values) => values,
            WeightMemory::Settled(settled) => settled.as_slice(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(values: Vec<f32>) -> WeightMemory<f32> {
        let mut memory = WeightMemory::Own(values);
        memory.settle();
        memory
    }

    #[test]
    fn settled_matrices_keep_their_values_on_lines_of_their_own_as_others_come_and_go() {
        let values = |seed: usize, n: usize| -> Vec<f32> {
            (0..n).map(|i| (seed * 1_000_003 + i) as f32).collect()
        };
        let first = settled(values(1, 1_001));
        let second = settled(values(2, 70_000));
        drop(first);
        let third = settled(values(3, 17));
        let larger_than_a_region = settled(values(4, REGION_BYTES / 4 + 5));
        for (memory, seed, n) in [
            (&second, 2, 70_000),
            (&third, 3, 17),
            (&larger_than_a_region, 4, REGION_BYTES / 4 + 5),
        ] {
            assert!(matches!(memory, WeightMemory::Settled(_)));
            assert_eq!(memory.as_ptr() as usize % LINE, 0);
            assert_eq!(&memory[..], &values(seed, n)[..]);
        }
    }

    #[test]
    fn a_settled_matrix_written_again_is_its_own_copy() {
        let mut memory = settled(vec![1.0, 2.0, 3.0]);
        memory.own().push(4.0);
        assert!(matches!(memory, WeightMemory::Own(_)));
        assert_eq!(&memory[..], &[1.0, 2.0, 3.0, 4.0]);
        let mut empty = settled(Vec::new());
        assert!(matches!(empty, WeightMemory::Own(_)), "nothing to settle");
        assert!(empty.own().is_empty());
    }
}
