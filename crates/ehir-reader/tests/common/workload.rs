//! The generated structured module of the throughput and heap measurements (the reader's
//! `memory` and `throughput` tests, and the `opt_throughput` benchmark of the `ehir` crate,
//! which includes this file by path), and the counting allocator they measure heap with.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `units` × 13 ops in functions of 100 units, plus the function op and the return of
/// each function: the CIR text and its op count.
pub fn structured_workload(units: usize) -> (String, usize) {
    let mut s = String::new();
    let mut ops = 0;
    let per_func = 100;
    for f in 0..units.div_ceil(per_func) {
        let _ = writeln!(s, "cir.func @f{f}(%arg0: !cir.ptr<!s32i>) {{");
        ops += 1;
        for u in 0..per_func.min(units - f * per_func) {
            let _ = write!(
                s,
                "  cir.scope {{
    %a{u} = cir.load %arg0 : !cir.ptr<!s32i>, !s32i
    %b{u} = cir.const #cir.int<{u}> : !s32i
    %c{u} = cir.cmp(eq, %a{u}, %b{u}) : !s32i, !cir.bool
    cir.if %c{u} {{
      cir.call @g(%a{u}) : (!s32i) -> ()
      cir.yield
    }}
    cir.cleanup.scope {{
      cir.call @h() : () -> ()
      cir.yield
    }} cleanup all {{
      cir.call @d() nothrow : () -> ()
      cir.yield
    }}
    cir.yield
  }}
"
            );
            ops += 13;
        }
        s.push_str("  cir.return\n}\n");
        ops += 1;
    }
    (s, ops)
}

/// Counts live and peak heap bytes in [`LIVE`] and [`PEAK`] (install it with
/// `#[global_allocator]`).
pub struct Counting;

pub static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}
