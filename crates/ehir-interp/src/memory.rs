//! The memory model: every object (alloca, global, heap block, exception object, function)
//! is a separate allocation of bytes, and a pointer is a 64-bit value naming its allocation
//! and an offset in it. Every access is checked: null, dangling (after the scope or the
//! free that ended the object), out of bounds and over-budget are reported errors.
//!
//! Pointer encoding: bits 40..64 hold the allocation slot (slot 0 is never used, so the
//! null pointer is 0), bits 32..40 a generation number of the slot, bits 0..32 the byte
//! offset. Freed slots are reused only after [`QUARANTINE`] other frees, and then with
//! the next generation, so a dangling pointer is caught unless the same slot was
//! recycled 256 times since (over a million frees later).

use ehir_core::Symbol;
use std::collections::VecDeque;

/// Slots kept out of reuse after they are freed.
pub const QUARANTINE: usize = 4096;
/// Bookkeeping bytes charged per allocation against the memory budget.
pub const ALLOCATION_OVERHEAD: u64 = 64;
/// The largest single allocation (offsets are signed 32-bit, so that a pointer a little
/// before its object, as a loop running backwards makes, stays distinct from one inside).
pub const MAX_ALLOCATION: u64 = i32::MAX as u64;

/// What an allocation is; it decides how pointers into it are printed.
#[derive(Clone, Debug, PartialEq)]
pub enum AllocKind {
    /// A `cir.alloca`, by its variable name.
    Stack(Symbol),
    /// Storage the harness made for parameter `n` of the entry function.
    Param(u32),
    /// A module global or an external object named by a symbol (typeinfo objects...).
    Global(Symbol),
    /// The N-th heap block (`malloc`, `operator new`).
    Heap(u32),
    /// The object of exception number N.
    Exception(u32),
    /// A function, as the target of function pointers.
    Function(Symbol),
    /// A function or vtable of the standard exception classes the interpreter provides
    /// (see `crate::library`), by key.
    Library(u16),
    /// The address of a label (`cir.block_address`).
    Label(Symbol, Symbol),
    /// Placeholder of slot 0 and of recycled slots.
    Nothing,
    /// A string the harness made (e.g. the value of a `--throw-at` `const char*`).
    HarnessString(u32),
}

/// One allocation.
#[derive(Debug)]
pub struct Allocation {
    pub bytes: Vec<u8>,
    pub generation: u8,
    pub live: bool,
    pub read_only: bool,
    pub kind: AllocKind,
}

/// Why an access failed.
#[derive(Debug, Clone, PartialEq)]
pub enum MemError {
    Null,
    /// A pointer that names no allocation (made up from an integer, or corrupted).
    Invalid(u64),
    /// The allocation was freed or its scope ended. Carries the allocation's kind.
    Dangling(AllocKind),
    OutOfBounds {
        kind: AllocKind,
        offset: i64,
        size: u64,
        len: u64,
    },
    ReadOnly(AllocKind),
    /// The memory budget would be exceeded.
    Budget {
        limit: u64,
    },
    /// A single allocation larger than [`MAX_ALLOCATION`].
    TooLarge(u64),
}

/// A decoded pointer.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Decoded {
    pub slot: u32,
    pub generation: u8,
    pub offset: u32,
}

/// Encodes a pointer.
#[inline]
pub fn encode(slot: u32, generation: u8, offset: u32) -> u64 {
    (u64::from(slot) << 40) | (u64::from(generation) << 32) | u64::from(offset)
}

/// Decodes a pointer.
#[inline]
pub fn decode(addr: u64) -> Decoded {
    Decoded {
        slot: (addr >> 40) as u32,
        generation: (addr >> 32) as u8,
        offset: addr as u32,
    }
}

/// Adds a byte delta to a pointer: the offset wraps within its 32 bits so that the
/// allocation a pointer names never changes by arithmetic.
#[inline]
pub fn offset_by(addr: u64, delta: i64) -> u64 {
    let d = decode(addr);
    encode(
        d.slot,
        d.generation,
        (d.offset as i64).wrapping_add(delta) as u32,
    )
}

/// Adds `delta` bytes to a pointer unless the result leaves the signed 32-bit offset
/// range, which no object reaches ([`MAX_ALLOCATION`]): `None` then, so that pointer
/// arithmetic with a huge stride is an out-of-bounds error instead of wrapping around
/// to some other byte of the same object.
#[inline]
pub fn offset_checked(addr: u64, delta: i128) -> Option<u64> {
    let d = decode(addr);
    let offset = i128::from(d.offset as i32).checked_add(delta)?;
    let offset = i32::try_from(offset).ok()?;
    Some(encode(d.slot, d.generation, offset as u32))
}

/// All allocations of a run.
pub struct Memory {
    allocs: Vec<Allocation>,
    free: VecDeque<u32>,
    live_bytes: u64,
    live_count: u64,
    limit: u64,
    /// Highest memory use seen, for the closing statistics.
    pub peak: u64,
}

impl Memory {
    pub fn new(limit: u64) -> Memory {
        let mut allocs = Vec::with_capacity(256);
        // Slot 0 stands for "no allocation" so that 0 is the null pointer.
        allocs.push(Allocation {
            bytes: Vec::new(),
            generation: 0,
            live: false,
            read_only: true,
            kind: AllocKind::Nothing,
        });
        Memory {
            allocs,
            free: VecDeque::new(),
            live_bytes: 0,
            live_count: 0,
            limit,
            peak: 0,
        }
    }

    /// Bytes in use, including per-allocation overhead.
    pub fn in_use(&self) -> u64 {
        self.live_bytes + self.live_count * ALLOCATION_OVERHEAD
    }

    /// Charges `extra` bytes of non-allocation state (frames) against the budget.
    pub fn check_budget(&mut self, extra: u64) -> Result<(), MemError> {
        let total = self.in_use().saturating_add(extra);
        if total > self.limit {
            return Err(MemError::Budget { limit: self.limit });
        }
        self.peak = self.peak.max(total);
        Ok(())
    }

    /// Makes a zero-filled allocation of `size` bytes and returns a pointer to its start.
    pub fn allocate(&mut self, size: u64, kind: AllocKind, extra: u64) -> Result<u64, MemError> {
        if size > MAX_ALLOCATION {
            return Err(MemError::TooLarge(size));
        }
        let total = self
            .in_use()
            .saturating_add(size)
            .saturating_add(ALLOCATION_OVERHEAD)
            .saturating_add(extra);
        if total > self.limit {
            return Err(MemError::Budget { limit: self.limit });
        }
        self.peak = self.peak.max(total);
        self.live_bytes += size;
        self.live_count += 1;
        let bytes = vec![0u8; size as usize];
        if self.free.len() > QUARANTINE
            && let Some(slot) = self.free.pop_front()
        {
            let a = &mut self.allocs[slot as usize];
            a.generation = a.generation.wrapping_add(1);
            a.bytes = bytes;
            a.live = true;
            a.read_only = false;
            a.kind = kind;
            return Ok(encode(slot, a.generation, 0));
        }
        let slot = self.allocs.len() as u32;
        if slot >= 1 << 24 {
            return Err(MemError::Budget { limit: self.limit });
        }
        self.allocs.push(Allocation {
            bytes,
            generation: 0,
            live: true,
            read_only: false,
            kind,
        });
        Ok(encode(slot, 0, 0))
    }

    /// Ends the lifetime of the allocation a pointer names (scope exit, `free`).
    /// Ends (`live == false`) or starts again the lifetime of the object `addr` points
    /// into without freeing it: a block-scope variable whose scope was left at a lowered
    /// phase. Accesses while it is not live are dangling; it must be live again before
    /// [`Memory::release`].
    pub fn set_live(&mut self, addr: u64, live: bool) {
        let d = decode(addr);
        if let Some(a) = self.allocs.get_mut(d.slot as usize)
            && d.slot != 0
            && a.generation == d.generation
        {
            a.live = live;
        }
    }

    /// Freeing something already dead or not a live allocation start is an error.
    pub fn release(&mut self, addr: u64) -> Result<(), MemError> {
        let d = decode(addr);
        let a = self.lookup(d)?;
        let _ = a;
        let a = &mut self.allocs[d.slot as usize];
        self.live_bytes -= a.bytes.len() as u64;
        self.live_count -= 1;
        a.bytes = Vec::new();
        a.live = false;
        self.free.push_back(d.slot);
        Ok(())
    }

    /// Marks an allocation read-only (constant globals).
    pub fn set_read_only(&mut self, addr: u64) {
        let d = decode(addr);
        if let Some(a) = self.allocs.get_mut(d.slot as usize) {
            a.read_only = true;
        }
    }

    fn lookup(&self, d: Decoded) -> Result<&Allocation, MemError> {
        if d.slot == 0 {
            return Err(if d.offset == 0 && d.generation == 0 {
                MemError::Null
            } else {
                MemError::Invalid(encode(d.slot, d.generation, d.offset))
            });
        }
        let Some(a) = self.allocs.get(d.slot as usize) else {
            return Err(MemError::Invalid(encode(d.slot, d.generation, d.offset)));
        };
        if a.generation != d.generation {
            // The slot was recycled: the object this pointer named is gone.
            return Err(MemError::Dangling(AllocKind::Nothing));
        }
        if !a.live {
            return Err(MemError::Dangling(a.kind.clone()));
        }
        Ok(a)
    }

    /// The kind of the allocation a pointer names, alive or not (for printing pointers).
    pub fn kind_of(&self, addr: u64) -> Option<(&AllocKind, bool)> {
        let d = decode(addr);
        if d.slot == 0 {
            return None;
        }
        let a = self.allocs.get(d.slot as usize)?;
        Some((&a.kind, a.live && a.generation == d.generation))
    }

    #[inline]
    fn range(&self, addr: u64, size: u64) -> Result<(usize, usize), MemError> {
        let d = decode(addr);
        let a = self.lookup(d)?;
        let start = d.offset as u64;
        let len = a.bytes.len() as u64;
        if start.saturating_add(size) > len {
            return Err(MemError::OutOfBounds {
                kind: a.kind.clone(),
                offset: d.offset as i32 as i64,
                size,
                len,
            });
        }
        Ok((d.slot as usize, start as usize))
    }

    /// Checks that `size` bytes at `addr` may be read.
    pub fn check(&self, addr: u64, size: u64) -> Result<(), MemError> {
        self.range(addr, size).map(|_| ())
    }

    /// Reads `size` (1..=8) bytes as a little-endian unsigned integer.
    #[inline]
    pub fn read_uint(&self, addr: u64, size: u64) -> Result<u64, MemError> {
        let d = decode(addr);
        if let Some(a) = self.allocs.get(d.slot as usize)
            && a.live
            && a.generation == d.generation
            && d.slot != 0
        {
            let start = d.offset as usize;
            let bytes = &a.bytes;
            match size {
                4 if start + 4 <= bytes.len() => {
                    let b: [u8; 4] = bytes[start..start + 4].try_into().unwrap_or([0; 4]);
                    return Ok(u64::from(u32::from_le_bytes(b)));
                }
                8 if start + 8 <= bytes.len() => {
                    let b: [u8; 8] = bytes[start..start + 8].try_into().unwrap_or([0; 8]);
                    return Ok(u64::from_le_bytes(b));
                }
                _ => {}
            }
        }
        let (slot, start) = self.range(addr, size)?;
        let bytes = &self.allocs[slot].bytes[start..start + size as usize];
        let mut buf = [0u8; 8];
        let n = bytes.len().min(8);
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(u64::from_le_bytes(buf))
    }

    /// Writes the low `size` (1..=8) bytes of `value`, little-endian.
    #[inline]
    pub fn write_uint(&mut self, addr: u64, size: u64, value: u64) -> Result<(), MemError> {
        let d = decode(addr);
        if let Some(a) = self.allocs.get_mut(d.slot as usize)
            && a.live
            && !a.read_only
            && a.generation == d.generation
            && d.slot != 0
        {
            let start = d.offset as usize;
            match size {
                4 if start + 4 <= a.bytes.len() => {
                    a.bytes[start..start + 4].copy_from_slice(&(value as u32).to_le_bytes());
                    return Ok(());
                }
                8 if start + 8 <= a.bytes.len() => {
                    a.bytes[start..start + 8].copy_from_slice(&value.to_le_bytes());
                    return Ok(());
                }
                _ => {}
            }
        }
        let (slot, start) = self.range(addr, size)?;
        let a = &mut self.allocs[slot];
        if a.read_only {
            return Err(MemError::ReadOnly(a.kind.clone()));
        }
        let n = (size as usize).min(8);
        a.bytes[start..start + n].copy_from_slice(&value.to_le_bytes()[..n]);
        // Wider-than-64-bit integers: the extra bytes hold the sign extension.
        if size as usize > n {
            let fill = if (value as i64) < 0 { 0xff } else { 0 };
            a.bytes[start + n..start + size as usize].fill(fill);
        }
        Ok(())
    }

    /// Reads `size` bytes.
    pub fn read_bytes(&self, addr: u64, size: u64) -> Result<&[u8], MemError> {
        let (slot, start) = self.range(addr, size)?;
        Ok(&self.allocs[slot].bytes[start..start + size as usize])
    }

    /// Writes bytes.
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        let (slot, start) = self.range(addr, data.len() as u64)?;
        let a = &mut self.allocs[slot];
        if a.read_only {
            return Err(MemError::ReadOnly(a.kind.clone()));
        }
        a.bytes[start..start + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Writes bytes into a read-only allocation (initialising constant globals).
    pub fn init_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        let (slot, start) = self.range(addr, data.len() as u64)?;
        self.allocs[slot].bytes[start..start + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Copies `size` bytes between (possibly overlapping) ranges.
    pub fn copy(&mut self, dst: u64, src: u64, size: u64) -> Result<(), MemError> {
        let data = self.read_bytes(src, size)?.to_vec();
        self.write_bytes(dst, &data)
    }

    /// Reads a NUL-terminated string starting at `addr` (at most `max` bytes).
    pub fn read_c_string(&self, addr: u64, max: usize) -> Result<Vec<u8>, MemError> {
        let d = decode(addr);
        let a = self.lookup(d)?;
        let start = d.offset as usize;
        let bytes = a.bytes.get(start..).ok_or(MemError::OutOfBounds {
            kind: a.kind.clone(),
            offset: d.offset as i32 as i64,
            size: 1,
            len: a.bytes.len() as u64,
        })?;
        match bytes.iter().take(max).position(|&b| b == 0) {
            Some(n) => Ok(bytes[..n].to_vec()),
            None if bytes.len() < max => Err(MemError::OutOfBounds {
                kind: a.kind.clone(),
                offset: (start + bytes.len()) as i64,
                size: 1,
                len: a.bytes.len() as u64,
            }),
            None => Ok(bytes[..max].to_vec()),
        }
    }

    /// Length of the allocation a pointer names.
    pub fn len_of(&self, addr: u64) -> Result<u64, MemError> {
        Ok(self.lookup(decode(addr))?.bytes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ehir_core::EntityRef;

    fn sym() -> Symbol {
        Symbol::new(3)
    }

    #[test]
    fn null_dangling_and_bounds_are_errors() {
        let mut m = Memory::new(1 << 20);
        assert_eq!(m.read_uint(0, 4), Err(MemError::Null));
        let p = m.allocate(8, AllocKind::Stack(sym()), 0).unwrap();
        m.write_uint(p, 4, 0x1234_5678).unwrap();
        assert_eq!(m.read_uint(p, 4).unwrap(), 0x1234_5678);
        assert!(matches!(
            m.read_uint(offset_by(p, 6), 4),
            Err(MemError::OutOfBounds { .. })
        ));
        assert!(matches!(
            m.read_uint(offset_by(p, -4), 4),
            Err(MemError::OutOfBounds { .. })
        ));
        m.release(p).unwrap();
        assert_eq!(
            m.read_uint(p, 4),
            Err(MemError::Dangling(AllocKind::Stack(sym())))
        );
        assert!(m.release(p).is_err());
    }

    #[test]
    fn budget_is_enforced() {
        let mut m = Memory::new(1000);
        assert!(m.allocate(500, AllocKind::Heap(1), 0).is_ok());
        assert_eq!(
            m.allocate(500, AllocKind::Heap(2), 0),
            Err(MemError::Budget { limit: 1000 })
        );
    }

    #[test]
    fn recycled_slots_get_a_new_generation() {
        let mut m = Memory::new(1 << 30);
        let first = m.allocate(4, AllocKind::Heap(0), 0).unwrap();
        m.release(first).unwrap();
        let mut reused = None;
        for i in 0..(2 * QUARANTINE as u32) {
            let p = m.allocate(4, AllocKind::Heap(i + 1), 0).unwrap();
            if decode(p).slot == decode(first).slot {
                reused = Some(p);
                break;
            }
            m.release(p).unwrap();
        }
        // The slot is reused only after the quarantine, and the stale pointer must not
        // reach the new object.
        let fresh = reused.expect("slot reused after the quarantine");
        assert_ne!(fresh, first);
        assert!(m.read_uint(first, 4).is_err());
        assert!(m.read_uint(fresh, 4).is_ok());
    }
}
