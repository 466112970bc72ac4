//! The program's stdout stream, buffered the way glibc 2.36 buffers it, so that what an
//! `abort` loses is what a g++-built program loses.
//!
//! A write is one `_IO_sputn` of the C library (a literal run of a `printf` format, the
//! text of a `%s`, the string of a `puts`) or one `putc`. With full buffering of `size`
//! bytes (`_IO_new_file_xsputn`):
//! - a write that fits in the buffer's free space is buffered; a buffer that becomes
//!   exactly full is *not* flushed yet;
//! - otherwise the free space is filled, the buffer is flushed, the largest multiple of
//!   `size` of what remains is written directly, and the rest is buffered;
//! - the first write allocates the buffer and so has no free space: a first write of
//!   `size` bytes or more goes out directly (up to a multiple of `size`);
//! - `putc` flushes a full buffer before it stores its character.
//!
//! Line buffering adds a flush of everything up to the last newline written (glibc's
//! exact piece boundaries for line-buffered streams are not modelled).

use crate::config::StdoutBuffering;

/// stdout: what reached the file descriptor and what is still in the buffer.
pub(crate) struct Stdout {
    mode: StdoutBuffering,
    /// Bytes written to the descriptor.
    pub written: Vec<u8>,
    /// Bytes in the buffer.
    buffer: Vec<u8>,
    /// Whether the buffer exists (glibc allocates it on the first write).
    allocated: bool,
    /// Bytes thrown away by `abort` (or `_Exit`) while still buffered.
    pub lost: Vec<u8>,
}

impl Stdout {
    pub fn new(mode: StdoutBuffering) -> Stdout {
        Stdout {
            mode,
            written: Vec::new(),
            buffer: Vec::new(),
            allocated: false,
            lost: Vec::new(),
        }
    }

    fn size(&self) -> Option<usize> {
        match self.mode {
            StdoutBuffering::Full { size } | StdoutBuffering::Line { size } => {
                Some((size as usize).max(1))
            }
            StdoutBuffering::Unbuffered => None,
        }
    }

    /// One `_IO_sputn` of `data`.
    pub fn write(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let Some(size) = self.size() else {
            self.written.extend_from_slice(data);
            return;
        };
        let space = if self.allocated {
            size.saturating_sub(self.buffer.len())
        } else {
            0
        };
        let fits = space.min(data.len());
        self.buffer.extend_from_slice(&data[..fits]);
        let rest = &data[fits..];
        if !rest.is_empty() {
            self.flush();
            self.allocated = true;
            // glibc keeps block alignment only for buffers of 128 bytes or more.
            let direct = if size >= 128 {
                rest.len() - rest.len() % size
            } else {
                rest.len()
            };
            self.written.extend_from_slice(&rest[..direct]);
            self.buffer.extend_from_slice(&rest[direct..]);
        }
        if matches!(self.mode, StdoutBuffering::Line { .. }) && data.contains(&b'\n') {
            self.flush_lines();
        }
    }

    /// One `putc` of `c`.
    pub fn put_char(&mut self, c: u8) {
        let Some(size) = self.size() else {
            self.written.push(c);
            return;
        };
        if !self.allocated {
            self.allocated = true;
        } else if self.buffer.len() >= size {
            self.flush();
        }
        self.buffer.push(c);
        if matches!(self.mode, StdoutBuffering::Line { .. }) && c == b'\n' {
            self.flush();
        }
    }

    /// Writes out everything up to the last buffered newline.
    fn flush_lines(&mut self) {
        if let Some(last) = self.buffer.iter().rposition(|&b| b == b'\n') {
            self.written.extend(self.buffer.drain(..=last));
        }
    }

    /// `fflush(stdout)`, and what `exit` does.
    pub fn flush(&mut self) {
        self.written.append(&mut self.buffer);
    }

    /// `abort`: the buffered bytes never reach the descriptor.
    pub fn discard(&mut self) {
        self.lost.append(&mut self.buffer);
    }

    /// `setvbuf(stdout, buf, mode, size)`. `user_buffer`: whether the program passed a
    /// buffer (then `size` is its size); glibc flushes first in that case and for
    /// `_IONBF`, and otherwise keeps the buffer it has (or allocates its default one).
    pub fn set_buffering(&mut self, mode: StdoutBuffering, user_buffer: bool) {
        let mode = match (mode, user_buffer) {
            (StdoutBuffering::Unbuffered, _) => {
                self.flush();
                StdoutBuffering::Unbuffered
            }
            (m, true) => {
                // The new buffer starts with no write area: the next write behaves
                // like a first write.
                self.flush();
                self.allocated = false;
                m
            }
            (StdoutBuffering::Full { size }, false) => StdoutBuffering::Full {
                size: self.current_size().unwrap_or(size),
            },
            (StdoutBuffering::Line { size }, false) => StdoutBuffering::Line {
                size: self.current_size().unwrap_or(size),
            },
        };
        self.mode = mode;
    }

    /// The size of the buffer in use, if the stream is buffered.
    fn current_size(&self) -> Option<u32> {
        match self.mode {
            StdoutBuffering::Full { size } | StdoutBuffering::Line { size } => Some(size),
            StdoutBuffering::Unbuffered => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> Stdout {
        Stdout::new(StdoutBuffering::Full { size: 4096 })
    }

    /// The bytes that reach the descriptor when the program aborts after `writes`
    /// (`Ok(n)`: an `_IO_sputn` of n bytes, `Err(n)`: n `putc`s).
    fn reached(writes: &[Result<usize, usize>]) -> usize {
        let mut s = full();
        for w in writes {
            match *w {
                Ok(n) => s.write(&vec![b'x'; n]),
                Err(n) => (0..n).for_each(|_| s.put_char(b'y')),
            }
        }
        s.discard();
        s.written.len()
    }

    // Each expectation was measured with a g++ 12 / glibc 2.36 program writing to a
    // pipe and then calling abort (see the crate docs).
    #[test]
    fn putc_flushes_a_full_buffer_only_when_more_comes() {
        assert_eq!(reached(&[Err(100)]), 0);
        assert_eq!(reached(&[Err(4096)]), 0);
        assert_eq!(reached(&[Err(4097)]), 4096);
        assert_eq!(reached(&[Err(8192)]), 4096);
        assert_eq!(reached(&[Err(8193)]), 8192);
        assert_eq!(reached(&[Err(10000)]), 8192);
    }

    #[test]
    fn large_writes_go_out_in_whole_blocks() {
        assert_eq!(reached(&[Ok(4096)]), 4096);
        assert_eq!(reached(&[Ok(5000)]), 4096);
        assert_eq!(reached(&[Ok(8192)]), 8192);
        assert_eq!(reached(&[Err(1), Ok(4095)]), 0);
        assert_eq!(reached(&[Err(1), Ok(8191)]), 8192);
        assert_eq!(reached(&[Err(5), Ok(8187)]), 8192);
        assert_eq!(reached(&[Err(4096), Ok(4096)]), 8192);
        assert_eq!(reached(&[Err(4096), Ok(8192)]), 12288);
        assert_eq!(reached(&[Err(10), Ok(8182)]), 8192);
        // puts: the string, then the newline by putc.
        assert_eq!(reached(&[Ok(4095), Err(1)]), 0);
        assert_eq!(reached(&[Ok(8191), Err(1)]), 4096);
    }

    #[test]
    fn flush_and_exit_write_everything() {
        let mut s = full();
        s.write(b"abc");
        s.flush();
        s.write(b"def");
        s.discard();
        assert_eq!(s.written, b"abc");
        assert_eq!(s.lost, b"def");
        let mut s = full();
        s.write(b"abc");
        s.flush();
        assert_eq!(s.written, b"abc");
    }

    #[test]
    fn unbuffered_and_line_buffered() {
        let mut s = Stdout::new(StdoutBuffering::Unbuffered);
        s.write(b"ab");
        s.put_char(b'c');
        s.discard();
        assert_eq!(s.written, b"abc");
        let mut s = Stdout::new(StdoutBuffering::Line { size: 4096 });
        s.write(b"one\ntw");
        s.put_char(b'o');
        s.put_char(b'\n');
        s.write(b"three");
        s.discard();
        assert_eq!(s.written, b"one\ntwo\n");
        assert_eq!(s.lost, b"three");
    }

    // Measured like the others, with `setvbuf` (see the crate docs).
    #[test]
    fn setvbuf_unbuffered_flushes_first() {
        let mut s = full();
        s.write(b"abc");
        s.set_buffering(StdoutBuffering::Unbuffered, false);
        s.write(b"def");
        s.discard();
        assert_eq!(s.written, b"abcdef");
        // A small user buffer: the first write goes out directly, then writes that do
        // not fit go out whole.
        let mut s = full();
        s.set_buffering(StdoutBuffering::Full { size: 8 }, true);
        s.write(b"12345");
        s.write(b"678");
        s.write(b"9abcdefgh");
        s.write(b"ij");
        s.discard();
        assert_eq!(s.written, b"123456789abcdefgh");
        assert_eq!(s.lost, b"ij");
    }
}
