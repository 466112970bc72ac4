//! msvcrt's RTTI functions, for code built for the Microsoft ABI (the Clang front end's
//! `--abi msvc` modules), modelled on the RTTI objects such a module declares: a
//! vftable's first slot points to a Complete Object Locator (`??_R4<class>6B@`, whose
//! name gives the class, and whose second field the offset of the vftable pointer in the
//! complete object) and
//! `type_info` objects are TypeDescriptors (`??_R0<code>@8`), whose decorated name
//! (`.?AVC@@`) follows the vftable pointer and the name cache, as `type_info::operator==`
//! of the Windows headers reads it ([`Machine::init_type_descriptor`]).
//!
//! - `__RTtypeid(object)`: the TypeDescriptor of the object's dynamic type (the module
//!   declares one for every class with a vftable); `bad_typeid` for a null object.
//! - `__RTDynamicCast(object, vfptr_offset, source, target, is_reference)`: the object's
//!   most derived object converted to the target class when that is an unambiguous
//!   public base of it (or itself), else null, or `bad_cast` for a reference.
//! - `__RTCastToVoid(object)`: the most derived object.

use crate::externals::ExternalResult;
use crate::machine::{Machine, Stop};
use crate::memory;
use ehir_core::Symbol;
use ehir_core::abi::runtime::{MSVC_RTCAST_TO_VOID, MSVC_RTDYNAMIC_CAST, MSVC_RTTYPEID};
use ehir_core::abi::type_names::{
    complete_object_locator_class, descriptor_code, msvc_descriptor_to_itanium,
    type_descriptor_name,
};

/// The offset of a TypeDescriptor's decorated name: after the `type_info` vftable pointer
/// and the undecorated-name cache.
const DECORATED_NAME_OFFSET: i64 = 16;

impl Machine<'_> {
    /// Calls one of msvcrt's RTTI functions (`None`: `name` is none of them).
    pub(crate) fn call_msvc_rtti(
        &mut self,
        name: &str,
        args: &[u64],
    ) -> Result<Option<ExternalResult>, Stop> {
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let value = |v: u64| Ok(Some(ExternalResult::Value(Some(v))));
        match name {
            MSVC_RTTYPEID => {
                if arg(0) == 0 {
                    return self.throw_runtime_exception("10bad_typeid").map(Some);
                }
                let (class, _) = self.dynamic_class(arg(0))?;
                let typeinfo = format!("_ZTI{class}");
                let descriptor = type_descriptor_name(&self.module.ctx, &typeinfo);
                let Some(symbol) = self.module.ctx.symbols.lookup(&descriptor) else {
                    return Err(self.error(format!(
                        "__RTtypeid: the module declares no TypeDescriptor @{descriptor}"
                    )));
                };
                value(self.global_addr(symbol)?)
            }
            MSVC_RTDYNAMIC_CAST => {
                let object = arg(0);
                if object == 0 {
                    return value(0);
                }
                let Some(target) = self
                    .symbol_of_pointer(arg(3))
                    .and_then(|s| msvc_descriptor_to_itanium(self.module.ctx.name(s)))
                else {
                    return Err(self
                        .error("__RTDynamicCast with a target that is no TypeDescriptor".into()));
                };
                let (dynamic, vfptr_offset) = self.dynamic_class(object)?;
                let most_derived =
                    memory::offset_by(object, -(arg(1) as i32 as i64) - vfptr_offset);
                match self.hierarchy.base_path(&dynamic, &target) {
                    Some(path) => value(self.follow_base_path(most_derived, &path)?),
                    None if arg(4) != 0 => self.throw_runtime_exception("8bad_cast").map(Some),
                    None => value(0),
                }
            }
            MSVC_RTCAST_TO_VOID => {
                if arg(0) == 0 {
                    return value(0);
                }
                let (_, vfptr_offset) = self.dynamic_class(arg(0))?;
                value(memory::offset_by(arg(0), -vfptr_offset))
            }
            _ => Ok(None),
        }
    }

    /// The dynamic type (Itanium mangling) of the polymorphic object at `object`: the
    /// class of the Complete Object Locator its vftable's first slot points to; and the
    /// offset of that vftable's pointer in the complete object (the locator's second
    /// field, plus the vtordisp its third field locates).
    fn dynamic_class(&self, object: u64) -> Result<(String, i64), Stop> {
        let read = |m: &Self, p: u64, size| m.mem.read_uint(p, size).map_err(|e| m.mem_error(e));
        let vfptr = read(self, object, 8)?;
        let locator = read(self, memory::offset_by(vfptr, -8), 8)?;
        let class = self
            .symbol_of_pointer(locator)
            .and_then(|s| complete_object_locator_class(self.module.ctx.name(s)))
            .or_else(|| self.msvc_library_locator_class(locator).map(str::to_string))
            .ok_or_else(|| {
                self.error("an object whose vftable names no Complete Object Locator".into())
            })?;
        let vfptr_offset = read(self, memory::offset_by(locator, 4), 4)? as u32 as i32;
        let mut offset = i64::from(vfptr_offset);
        // A vftable in a virtual base with a vtordisp (the locator's third field: how far
        // before the pointer it is): while the object is built or destroyed as a base of
        // a class that puts the virtual base elsewhere, it says how much further.
        let vtordisp_distance = read(self, memory::offset_by(locator, 8), 4)? as u32 as i32;
        if vtordisp_distance != 0 {
            let at = memory::offset_by(object, -i64::from(vtordisp_distance));
            offset += i64::from(read(self, at, 4)? as u32 as i32);
        }
        Ok((class, offset))
    }

    /// msvcrt throws one of its own exceptions (`bad_cast`, `bad_typeid`: `class` in
    /// Itanium mangling; msvcrt's classes are in the global namespace), an object the
    /// program only catches by type.
    fn throw_runtime_exception(&mut self, class: &str) -> Result<ExternalResult, Stop> {
        let p = self.allocate_exception(crate::library::MSVC_EXCEPTION_SIZE)?;
        self.init_msvc_runtime_exception(p, class)?;
        let exn = self.exception_of_pointer(p)?;
        self.announce_throw(exn, class.to_string(), None);
        Ok(ExternalResult::Threw(exn))
    }

    /// A TypeDescriptor the module declares (`??_R0<code>@8`) holds its decorated name
    /// (`.<code>`) after the vftable pointer and the name cache, when its storage has room.
    pub(crate) fn init_type_descriptor(&mut self, symbol: Symbol, p: u64) -> Result<(), Stop> {
        let name = self.module.ctx.name(symbol);
        let Some(code) = descriptor_code(name) else {
            return Ok(());
        };
        let mut bytes = format!(".{code}").into_bytes();
        bytes.push(0);
        let size = self.mem.len_of(p).map_err(|e| self.mem_error(e))?;
        if size < DECORATED_NAME_OFFSET as u64 + bytes.len() as u64 {
            return Ok(());
        }
        self.mem
            .init_bytes(memory::offset_by(p, DECORATED_NAME_OFFSET), &bytes)
            .map_err(|e| self.mem_error(e))
    }
}
