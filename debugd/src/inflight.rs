//! Which GL call a crashing thread was in, when it never stopped there:
//! scan the thread's stack (from the stack pointer up) for the first return
//! address that lies inside one of the preload's exported wrappers
//! (`glBufferData`, ...). The wrappers are found by name in the preload's
//! ELF dynamic symbol table and located with `/proc/PID/maps`.
//!
//! A heuristic with a known limit: a wrapper that tail-calls the real
//! function (optimised builds) leaves no return address; then nothing is
//! found and the crash report falls back to the last call gldbg saw.

use std::path::Path;

use crate::remote::Remote;

/// The call word (`ThreadCalls`: call count, last entered function id + 1)
/// of thread `tid`, at `offset` from its thread pointer `fs_base` (the
/// preload publishes the offset; 0: none). Read while the thread is
/// stopped: this is what names a call the stack cannot show.
pub fn thread_calls(tid: u32, fs_base: u64, offset: u64) -> Option<(u64, u32)> {
    if offset == 0 || fs_base == 0 {
        return None;
    }
    let b = Remote::new(tid)
        .read(fs_base.wrapping_add(offset), 16)
        .ok()?;
    Some((u64_at(&b, 0)?, u32_at(&b, 8)?))
}

/// How far above the stack pointer the scan looks.
const SCAN_BYTES: u64 = 256 << 10;

/// A function symbol of an ELF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub value: u64,
    pub size: u64,
    pub name: String,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

/// Function symbols (STT_FUNC, size > 0) of a little-endian ELF64 file's
/// `.dynsym` (and `.symtab` if present), sorted by address.
pub fn function_symbols(elf: &[u8]) -> Option<Vec<Symbol>> {
    if elf.get(0..4)? != b"\x7fELF" || *elf.get(4)? != 2 || *elf.get(5)? != 1 {
        return None;
    }
    let shoff = u64_at(elf, 0x28)? as usize;
    let shentsize = u16_at(elf, 0x3A)? as usize;
    let shnum = u16_at(elf, 0x3C)? as usize;
    let section = |i: usize| shoff.checked_add(i.checked_mul(shentsize)?);
    let mut out = Vec::new();
    for i in 0..shnum {
        let sh = section(i)?;
        let ty = u32_at(elf, sh + 4)?;
        if ty != 11 && ty != 2 {
            continue; // SHT_DYNSYM, SHT_SYMTAB
        }
        let off = u64_at(elf, sh + 0x18)? as usize;
        let size = u64_at(elf, sh + 0x20)? as usize;
        let link = u32_at(elf, sh + 0x28)? as usize;
        let entsize = (u64_at(elf, sh + 0x38)? as usize).max(24);
        let strsh = section(link)?;
        let stroff = u64_at(elf, strsh + 0x18)? as usize;
        let strsize = u64_at(elf, strsh + 0x20)? as usize;
        let strtab = elf.get(stroff..stroff.checked_add(strsize)?)?;
        for s in (off..off.checked_add(size)?).step_by(entsize) {
            let name_off = u32_at(elf, s)? as usize;
            let info = *elf.get(s + 4)?;
            let value = u64_at(elf, s + 8)?;
            let sz = u64_at(elf, s + 16)?;
            if info & 0xf != 2 || sz == 0 || value == 0 {
                continue;
            }
            let Some(rest) = strtab.get(name_off..) else {
                continue;
            };
            let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
            out.push(Symbol {
                value,
                size: sz,
                name: String::from_utf8_lossy(&rest[..end]).into_owned(),
            });
        }
    }
    out.sort_by_key(|s| s.value);
    out.dedup_by_key(|s| s.value);
    Some(out)
}

/// One line of `/proc/PID/maps`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    pub exec: bool,
    pub offset: u64,
    pub path: String,
}

pub fn parse_maps(text: &str) -> Vec<Mapping> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (range, perms, offset) = (f.next()?, f.next()?, f.next()?);
            let _dev = f.next()?;
            let _inode = f.next()?;
            let path = f.collect::<Vec<_>>().join(" ");
            let (a, b) = range.split_once('-')?;
            Some(Mapping {
                start: u64::from_str_radix(a, 16).ok()?,
                end: u64::from_str_radix(b, 16).ok()?,
                exec: perms.contains('x'),
                offset: u64::from_str_radix(offset, 16).ok()?,
                path,
            })
        })
        .collect()
}

/// The wrapper symbol containing `addr`, given the library's load base.
pub fn symbol_at(symbols: &[Symbol], base: u64, addr: u64) -> Option<&Symbol> {
    let rel = addr.checked_sub(base)?;
    let i = symbols.partition_point(|s| s.value <= rel).checked_sub(1)?;
    let s = &symbols[i];
    (rel < s.value + s.size).then_some(s)
}

/// The name of the GL/GLX/EGL wrapper the thread `tid` of `pid` is inside,
/// found by scanning its stack from `sp`.
pub fn call_in_flight(pid: u32, sp: u64, preload: &Path) -> Option<String> {
    let maps = parse_maps(&std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?);
    let canon = preload
        .canonicalize()
        .unwrap_or_else(|_| preload.to_path_buf());
    let file_name = preload.file_name()?.to_string_lossy().into_owned();
    let is_preload =
        |m: &Mapping| Path::new(&m.path) == canon || m.path.ends_with(&format!("/{file_name}"));
    let base = maps
        .iter()
        .filter(|m| is_preload(m))
        .map(|m| m.start - m.offset)
        .min()?;
    let exec: Vec<(u64, u64)> = maps
        .iter()
        .filter(|m| is_preload(m) && m.exec)
        .map(|m| (m.start, m.end))
        .collect();
    let path = maps.iter().find(|m| is_preload(m))?.path.clone();
    let symbols: Vec<Symbol> = function_symbols(&std::fs::read(&path).ok()?)?
        .into_iter()
        .filter(|s| gldbg_proto::api::function_id(&s.name).is_some())
        .collect();
    let stack_end = maps
        .iter()
        .find(|m| m.start <= sp && sp < m.end)
        .map_or(sp + SCAN_BYTES, |m| m.end);
    let len = (stack_end - sp).min(SCAN_BYTES) as usize & !7;
    let bytes = Remote::new(pid).read(sp & !7, len).ok()?;
    for w in bytes.chunks_exact(8) {
        let addr = u64::from_le_bytes(w.try_into().ok()?);
        if !exec.iter().any(|(a, b)| *a <= addr && addr < *b) {
            continue;
        }
        // A return address lies after a call instruction, never at the
        // wrapper's first byte: that is a function pointer the app keeps on
        // its stack (`eglGetProcAddress` hands out wrapper addresses).
        if let Some(s) = symbol_at(&symbols, base, addr)
            && addr - base != s.value
        {
            return Some(s.name.clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_maps_lines() {
        let m = parse_maps(
            "7f00-7f10 r--p 00000000 08:01 12 /usr/lib/libgldbg_preload.so\n\
             7f10-7f20 r-xp 00010000 08:01 12 /usr/lib/libgldbg_preload.so\n\
             7ffd-7ffe rw-p 00000000 00:00 0 [stack]\n",
        );
        assert_eq!(m.len(), 3);
        assert!(m[1].exec && !m[0].exec);
        assert_eq!((m[1].start, m[1].offset), (0x7f10, 0x10000));
        assert_eq!(m[2].path, "[stack]");
    }

    #[test]
    fn finds_symbols_of_this_test_binary() {
        // Our own executable is an ELF64 file with a symbol table.
        let exe = std::env::current_exe().unwrap();
        let syms = function_symbols(&std::fs::read(exe).unwrap()).unwrap();
        assert!(syms.len() > 100);
        assert!(syms.windows(2).all(|w| w[0].value < w[1].value));
        let s = &syms[syms.len() / 2];
        assert_eq!(
            symbol_at(&syms, 0x1000, 0x1000 + s.value).unwrap().name,
            s.name
        );
        assert!(symbol_at(&syms, 0x1000, 0x10).is_none());
        assert!(function_symbols(b"not an elf").is_none());
    }
}
