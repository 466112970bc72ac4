//! The standard exception classes as libstdc++ defines them, for programs that construct
//! them through the library (`throw std::out_of_range("...")` calls the external
//! `std::out_of_range::out_of_range(const char *)`) or get them from the runtime
//! (`std::bad_cast` from a failed `dynamic_cast`): each object holds a vtable pointer,
//! and the classes with a message (`std::logic_error`, `std::runtime_error` and theirs)
//! a pointer to it after it (libstdc++'s 16-byte layout). The vtables are the
//! interpreter's own (offset to top, typeinfo, complete and deleting destructors,
//! `what`), so a virtual call of `what()` or a `typeid` reaches them as in a program
//! linked with libstdc++.
//!
//! On the Microsoft target, msvcrt's own `bad_cast` and `bad_typeid` (what its
//! `__RTDynamicCast` and `__RTtypeid` throw) get the interpreter's vftables too, with
//! Complete Object Locators that name their classes.
//!
//! Their functions are not module symbols: a pointer to one names it by index
//! ([`AllocKind::Library`]), and an indirect call through it runs [`Machine::call_library`].

use crate::externals::ExternalResult;
use crate::machine::{Machine, Stop};
use crate::memory::{self, AllocKind};

/// The classes: mangled name and, for a class without a message, what `what()` says.
const CLASSES: &[(&str, Option<&str>)] = &[
    ("St9exception", Some("std::exception")),
    ("St13bad_exception", Some("std::bad_exception")),
    ("St9bad_alloc", Some("std::bad_alloc")),
    (
        "St20bad_array_new_length",
        Some("std::bad_array_new_length"),
    ),
    ("St8bad_cast", Some("std::bad_cast")),
    ("St10bad_typeid", Some("std::bad_typeid")),
    ("St11logic_error", None),
    ("St13runtime_error", None),
    ("St12domain_error", None),
    ("St16invalid_argument", None),
    ("St12length_error", None),
    ("St12out_of_range", None),
    ("St11range_error", None),
    ("St14overflow_error", None),
    ("St15underflow_error", None),
];

/// The virtual functions of each class, in vtable order: the complete-object and
/// deleting destructors, `what`. A library function's index is `class * 3 + slot`.
const SLOTS: u16 = 3;
const SLOT_DELETING_DESTRUCTOR: u16 = 1;
const SLOT_WHAT: u16 = 2;

/// The key of a class's vtable in `Machine::library` (function keys are below it).
const VTABLE_KEY: u16 = 0x8000;

/// The key of a class's fixed `what()` text in `Machine::library` (allocated once).
const TEXT_KEY: u16 = 0x4000;

/// The key of a class's Microsoft vftable in `Machine::library` (msvcrt's own classes).
const VFTABLE_KEY: u16 = 0x2000;

/// The key of the Complete Object Locator of a class's Microsoft vftable.
const LOCATOR_KEY: u16 = 0x1000;

/// The size of an object of msvcrt's `exception` classes: the vftable pointer, the
/// message pointer and whether the message is owned.
pub const MSVC_EXCEPTION_SIZE: u64 = 24;

/// msvcrt's own exception classes (`bad_cast`, in the global namespace: `8bad_cast`) and
/// the standard class whose `what()` text they share.
const MSVC_CLASSES: &[(&str, &str)] = &[
    ("8bad_cast", "St8bad_cast"),
    ("10bad_typeid", "St10bad_typeid"),
];

/// The index of class `mangled` (`St12out_of_range`).
fn class_index(mangled: &str) -> Option<u16> {
    CLASSES
        .iter()
        .position(|(name, _)| *name == mangled)
        .map(|i| i as u16)
}

/// What an external library function `name` of a standard exception class is: a
/// constructor (with a message, a copy, or neither), a destructor or `what()`.
enum Member {
    /// `C1EPKc`, `C2EPKc`: from a C string.
    FromMessage(u16),
    /// `C1ERKS_`, `C2ERKS_`: a copy.
    Copy(u16),
    /// `C1Ev`, `C2Ev`.
    Default(u16),
    /// `D1Ev`, `D2Ev`: nothing to do (the message is never freed).
    Destructor,
    /// `D0Ev`: destroys, then `operator delete(this)`.
    DeletingDestructor,
    /// `what() const` (`_ZNKSt…4whatEv`).
    What(u16),
}

fn member(name: &str) -> Option<Member> {
    if let Some(rest) = name.strip_prefix("_ZNKSt") {
        let class = format!("St{}", rest.strip_suffix("4whatEv")?);
        return class_index(&class).map(Member::What);
    }
    let rest = name.strip_prefix("_ZNSt")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let class = format!("St{}", rest.get(..digits + len)?);
    let index = class_index(&class)?;
    let has_message = CLASSES[index as usize].1.is_none();
    Some(match rest.get(digits + len..)? {
        "C1EPKc" | "C2EPKc" if has_message => Member::FromMessage(index),
        "C1ERKS_" | "C2ERKS_" => Member::Copy(index),
        "C1Ev" | "C2Ev" if !has_message => Member::Default(index),
        "D1Ev" | "D2Ev" => Member::Destructor,
        "D0Ev" => Member::DeletingDestructor,
        _ => return None,
    })
}

impl Machine<'_> {
    /// Runs external function `name` when it is a constructor, destructor or `what()` of
    /// a standard exception class (`None` otherwise).
    pub(crate) fn call_library_member(
        &mut self,
        name: &str,
        args: &[u64],
    ) -> Result<Option<ExternalResult>, Stop> {
        let Some(member) = member(name) else {
            return Ok(None);
        };
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        match member {
            Member::FromMessage(class) => {
                let text = self
                    .mem
                    .read_c_string(arg(1), 1 << 20)
                    .map_err(|e| self.mem_error(e))?;
                let message = self.harness_string(&text)?;
                self.init_library_object(arg(0), class, message)?;
            }
            Member::Copy(class) => {
                let message = if CLASSES[class as usize].1.is_none() {
                    self.read_word(memory::offset_by(arg(1), 8))?
                } else {
                    0
                };
                self.init_library_object(arg(0), class, message)?;
            }
            Member::Default(class) => self.init_library_object(arg(0), class, 0)?,
            Member::Destructor => {}
            Member::DeletingDestructor => self.heap_free(arg(0), "delete")?,
            Member::What(class) => return self.what_of(class, arg(0)).map(Some),
        }
        Ok(Some(ExternalResult::Value(None)))
    }

    /// Makes the object at `object` one of standard exception class `mangled` (its vtable
    /// pointer), as the runtime does for the exceptions it throws itself.
    pub(crate) fn init_standard_exception(
        &mut self,
        object: u64,
        mangled: &str,
    ) -> Result<(), Stop> {
        match class_index(mangled) {
            Some(class) => self.init_library_object(object, class, 0),
            None => Ok(()),
        }
    }

    /// Throws a new exception of standard class `mangled` (`St8bad_cast`), as the runtime
    /// does for a failed `dynamic_cast` or `typeid`, or from `std::unexpected`.
    pub(crate) fn throw_standard_exception(&mut self, mangled: &str) -> Result<u32, Stop> {
        let p = self.allocate_exception(8)?;
        self.init_standard_exception(p, mangled)?;
        let exn = self.exception_of_pointer(p)?;
        self.announce_throw(exn, mangled.to_string(), None);
        Ok(exn)
    }

    /// Makes the object at `object` (of [`MSVC_EXCEPTION_SIZE`] bytes) one of msvcrt's own
    /// exception classes (`8bad_cast`), as msvcrt's `__RTDynamicCast` and `__RTtypeid`
    /// throw them: a vftable pointer to the interpreter's vftable (its Complete Object
    /// Locator names the class; slot 0 the scalar deleting destructor, slot 1 `what()`),
    /// the class's text as the (not owned) message.
    pub(crate) fn init_msvc_runtime_exception(
        &mut self,
        object: u64,
        mangled: &str,
    ) -> Result<(), Stop> {
        let Some(class) = MSVC_CLASSES
            .iter()
            .find(|(msvc, _)| *msvc == mangled)
            .and_then(|(_, standard)| class_index(standard))
        else {
            return Err(self.error(format!("msvcrt's class '{mangled}' is not modelled")));
        };
        let vftable = match self.library.get(&(VFTABLE_KEY | class)) {
            Some(&p) => p,
            None => {
                let p = self.library_allocation(24, VFTABLE_KEY | class)?;
                let locator = self.library_allocation(24, LOCATOR_KEY | class)?;
                self.mem.set_read_only(locator);
                self.write_word(p, locator)?;
                for (at, slot) in [(8, SLOT_DELETING_DESTRUCTOR), (16, SLOT_WHAT)] {
                    let function = self.library_function(class * SLOTS + slot)?;
                    self.write_word(memory::offset_by(p, at), function)?;
                }
                self.mem.set_read_only(p);
                self.library.insert(VFTABLE_KEY | class, p);
                p
            }
        };
        self.write_word(object, memory::offset_by(vftable, 8))?;
        let ExternalResult::Value(Some(text)) = self.what_of(class, object)? else {
            return Err(self.error(format!("no text of msvcrt's class '{mangled}'")));
        };
        self.write_word(memory::offset_by(object, 8), text)?;
        self.write_word(memory::offset_by(object, 16), 0)
    }

    /// The class (`8bad_cast`) of a Complete Object Locator of the interpreter's own
    /// Microsoft vftables at `locator`, if it is one.
    pub(crate) fn msvc_library_locator_class(&self, locator: u64) -> Option<&'static str> {
        let Some((&AllocKind::Library(key), _)) = self.mem.kind_of(locator) else {
            return None;
        };
        if key & LOCATOR_KEY == 0 || key & (VTABLE_KEY | VFTABLE_KEY | TEXT_KEY) != 0 {
            return None;
        }
        let standard = CLASSES.get(usize::from(key & !LOCATOR_KEY))?.0;
        MSVC_CLASSES
            .iter()
            .find(|(_, s)| *s == standard)
            .map(|(msvc, _)| *msvc)
    }

    /// Stores the vtable pointer of class `class` in `object`, and `message` after it for
    /// a class with one.
    fn init_library_object(&mut self, object: u64, class: u16, message: u64) -> Result<(), Stop> {
        let vtable = self.library_vtable(class)?;
        self.write_word(object, memory::offset_by(vtable, 16))?;
        if CLASSES[class as usize].1.is_none() {
            self.write_word(memory::offset_by(object, 8), message)?;
        }
        Ok(())
    }

    /// The vtable of class `class`: offset to top, typeinfo (when the module names it),
    /// then its virtual functions.
    fn library_vtable(&mut self, class: u16) -> Result<u64, Stop> {
        if let Some(&p) = self.library.get(&(VTABLE_KEY | class)) {
            return Ok(p);
        }
        let words = 2 + u64::from(SLOTS);
        let p = self.library_allocation(words * 8, VTABLE_KEY | class)?;
        let typeinfo = format!("_ZTI{}", CLASSES[class as usize].0);
        let typeinfo = match self.module.ctx.symbols.lookup(&typeinfo) {
            Some(symbol) => self.global_addr(symbol)?,
            None => 0,
        };
        self.write_word(memory::offset_by(p, 8), typeinfo)?;
        for slot in 0..SLOTS {
            let function = self.library_function(class * SLOTS + slot)?;
            self.write_word(memory::offset_by(p, 16 + 8 * i64::from(slot)), function)?;
        }
        self.mem.set_read_only(p);
        self.library.insert(VTABLE_KEY | class, p);
        Ok(p)
    }

    /// A new allocation of `size` bytes for library object `key`.
    fn library_allocation(&mut self, size: u64, key: u16) -> Result<u64, Stop> {
        self.mem
            .allocate(size, AllocKind::Library(key), self.frame_bytes)
            .map_err(|e| self.mem_error(e))
    }

    /// The address of library function `index` (a target of function pointers).
    fn library_function(&mut self, index: u16) -> Result<u64, Stop> {
        if let Some(&p) = self.library.get(&index) {
            return Ok(p);
        }
        let p = self.library_allocation(0, index)?;
        self.library.insert(index, p);
        Ok(p)
    }

    /// Calls library function `index` (through a vtable): the complete-object destructor
    /// does nothing, the deleting one frees the object; `what` returns the message, or the
    /// class's fixed text.
    pub(crate) fn call_library(
        &mut self,
        index: u16,
        args: &[u64],
    ) -> Result<ExternalResult, Stop> {
        let (class, slot) = (index / SLOTS, index % SLOTS);
        let this = args.first().copied().unwrap_or(0);
        match slot {
            SLOT_WHAT => self.what_of(class, this),
            // Microsoft's scalar deleting destructor (`this`, flags) releases the storage
            // only when bit 0 of the flags is set, and returns `this`.
            SLOT_DELETING_DESTRUCTOR if args.len() == 2 => {
                if args[1] & 1 != 0 {
                    self.heap_free(this, "delete")?;
                }
                Ok(ExternalResult::Value(Some(this)))
            }
            SLOT_DELETING_DESTRUCTOR => {
                self.heap_free(this, "delete")?;
                Ok(ExternalResult::Value(None))
            }
            _ => Ok(ExternalResult::Value(None)),
        }
    }

    /// `what()` of object `this` of class `class`: its message, or the class's fixed text
    /// (allocated once).
    fn what_of(&mut self, class: u16, this: u64) -> Result<ExternalResult, Stop> {
        let Some(&(_, fixed)) = CLASSES.get(class as usize) else {
            return Err(self.error(format!("'what' of unknown library class #{class}")));
        };
        let text = match fixed {
            Some(_) if let Some(&p) = self.library.get(&(TEXT_KEY | class)) => p,
            Some(text) => {
                let p = self.harness_string(text.as_bytes())?;
                self.library.insert(TEXT_KEY | class, p);
                p
            }
            None => self.read_word(memory::offset_by(this, 8))?,
        };
        Ok(ExternalResult::Value(Some(text)))
    }

    /// The name of library function or vtable `key`, for printing pointers.
    pub(crate) fn library_name(key: u16) -> String {
        for (flag, prefix) in [(VFTABLE_KEY, "??_7"), (LOCATOR_KEY, "??_R4")] {
            if key & flag != 0 && key & (VTABLE_KEY | TEXT_KEY) == 0 {
                let standard = CLASSES.get(usize::from(key & !flag)).map_or("?", |c| c.0);
                let class = MSVC_CLASSES
                    .iter()
                    .find(|(_, s)| *s == standard)
                    .map_or("?", |(msvc, _)| msvc.trim_start_matches(char::is_numeric));
                return format!("@\"{prefix}{class}@@6B@\"");
            }
        }
        if key & VTABLE_KEY != 0 {
            let class = CLASSES
                .get(usize::from(key & !VTABLE_KEY))
                .map_or("?", |c| c.0);
            return format!("@_ZTV{class}");
        }
        let (class, slot) = (key / SLOTS, key % SLOTS);
        let class = CLASSES.get(usize::from(class)).map_or("?", |c| c.0);
        let member = ["D1Ev", "D0Ev", "4whatEv"][usize::from(slot)];
        format!("@_ZN{class}{member}")
    }

    fn read_word(&self, addr: u64) -> Result<u64, Stop> {
        self.mem.read_uint(addr, 8).map_err(|e| self.mem_error(e))
    }

    fn write_word(&mut self, addr: u64, value: u64) -> Result<(), Stop> {
        self.mem
            .write_uint(addr, 8, value)
            .map_err(|e| self.mem_error(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_of_the_standard_exceptions() {
        assert!(matches!(
            member("_ZNSt12out_of_rangeC1EPKc"),
            Some(Member::FromMessage(_))
        ));
        assert!(matches!(
            member("_ZNSt13runtime_errorC2ERKS_"),
            Some(Member::Copy(_))
        ));
        assert!(matches!(
            member("_ZNSt8bad_castC1Ev"),
            Some(Member::Default(_))
        ));
        assert!(matches!(
            member("_ZNSt11logic_errorD1Ev"),
            Some(Member::Destructor)
        ));
        // No message constructor for a class without a message, nor a default one for
        // a class with one; other classes are not these.
        assert!(matches!(
            member("_ZNSt9bad_allocD0Ev"),
            Some(Member::DeletingDestructor)
        ));
        assert!(matches!(
            member("_ZNKSt12out_of_range4whatEv"),
            Some(Member::What(_))
        ));
        assert!(member("_ZNKSt6vectorIiSaIiEE4sizeEv").is_none());
        assert!(member("_ZNSt8bad_castC1EPKc").is_none());
        assert!(member("_ZNSt11logic_errorC1Ev").is_none());
        assert!(member("_ZNSt6vectorIiSaIiEEC1Ev").is_none());
    }
}
