//! Memory hints for the large tables (the search's transposition table,
//! the Dots and Boxes solver's table).

/// Asks the kernel to back the still untouched capacity of `table` with
/// huge pages. Every probe of a table far larger than the caches otherwise
/// misses the address-translation cache too, and the page walk costs about
/// as much as the memory access itself. Only a hint: nothing changes where
/// the system does not offer it.
pub fn advise_huge_pages<T>(table: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = table.as_mut_ptr() as usize;
        let end = start + table.capacity() * std::mem::size_of::<T>();
        let aligned = start.next_multiple_of(HUGE);
        if end > aligned + HUGE {
            let length = (end - aligned) / HUGE * HUGE;
            // SAFETY: the range lies inside the vector's own allocation,
            // and MADV_HUGEPAGE changes only how it is backed, never its
            // contents or validity.
            unsafe { libc::madvise(aligned as *mut libc::c_void, length, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}
