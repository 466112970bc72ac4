//! What the C and C++ runtimes do around `main`: the module's `global_ctor` functions run
//! before it (lower priorities first, then in module order); functions registered with
//! `__cxa_atexit` (destructors of objects with static storage) or `atexit` run after it
//! returns or `exit` is called, last registered first (not after `abort`, `_Exit` or a
//! terminate); and the guards of static locals (`__cxa_guard_acquire`, `_release`,
//! `_abort`: the first byte of the 64-bit guard says "initialized"). An exception that
//! escapes a constructor or an exit function terminates, as no handler can catch it.

use crate::machine::{Boundary, Machine, Stop, SyncEnd};
use ehir_core::Symbol;

/// A function to run at exit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtExit {
    /// The function.
    pub function: Symbol,
    /// Its argument (`__cxa_atexit`), or none (`atexit`).
    pub argument: Option<u64>,
}

impl Machine<'_> {
    /// Runs the module's `global_ctor` functions (before the entry function).
    pub(crate) fn run_global_ctors(&mut self) -> Result<(), Stop> {
        let module = self.module;
        let mut ctors: Vec<(u32, usize, Symbol)> = module
            .functions
            .values()
            .enumerate()
            .filter(|(_, f)| f.body.is_some())
            .filter_map(|(order, f)| f.global_ctor.map(|p| (p, order, f.name)))
            .collect();
        ctors.sort();
        for (_, _, function) in ctors {
            self.run_outside_main(function, &[])?;
        }
        Ok(())
    }

    /// Calls a function the runtime runs on its own (a constructor of statics, an exit
    /// function): an exception escaping it terminates.
    fn run_outside_main(&mut self, function: Symbol, args: &[u64]) -> Result<(), Stop> {
        match self.call_sync(Boundary::Entry { catches: false }, function, args)? {
            SyncEnd::Returned(_) => Ok(()),
            SyncEnd::Threw(exn) => self.terminate_for(exn),
        }
    }

    /// `__cxa_atexit(f, arg, dso)` and `atexit(f)`: remembers `f` (0 when it names no
    /// function, which is an error).
    pub(crate) fn register_at_exit(
        &mut self,
        function: u64,
        argument: Option<u64>,
    ) -> Result<u64, Stop> {
        let Some(function) = self.symbol_of_pointer(function) else {
            return Err(self.error("atexit with a pointer that is not a function".into()));
        };
        self.at_exit.push(AtExit { function, argument });
        Ok(0)
    }

    /// Runs the functions registered to run at exit, last first (each once, also when
    /// one of them calls `exit`).
    pub(crate) fn run_at_exit(&mut self) -> Result<(), Stop> {
        while let Some(at_exit) = self.at_exit.pop() {
            let args: Vec<u64> = at_exit.argument.into_iter().collect();
            self.run_outside_main(at_exit.function, &args)?;
        }
        Ok(())
    }

    /// `__cxa_guard_acquire(guard)`: 1 when the static it guards is still to be
    /// initialized (this thread initializes it), 0 when it is initialized.
    pub(crate) fn guard_acquire(&mut self, guard: u64) -> Result<u64, Stop> {
        let done = self
            .mem
            .read_uint(guard, 1)
            .map_err(|e| self.mem_error(e))?;
        Ok(u64::from(done == 0))
    }

    /// `__cxa_guard_release(guard)` (the static is initialized) or
    /// `__cxa_guard_abort(guard)` (its initialization threw: the next pass tries again).
    pub(crate) fn guard_set(&mut self, guard: u64, initialized: bool) -> Result<(), Stop> {
        self.mem
            .write_uint(guard, 1, u64::from(initialized))
            .map_err(|e| self.mem_error(e))
    }
}
