//! Reading the app's memory with `process_vm_readv` (never word-by-word
//! `PEEKDATA`): pointer arguments such as the strings of `glShaderSource`.

use std::io::IoSliceMut;

use nix::errno::Errno;
use nix::sys::uio::{RemoteIoVec, process_vm_readv};
use nix::unistd::Pid;

const PAGE: u64 = 4096;
/// Longest NUL-terminated string read (a shader source).
const MAX_CSTR: usize = 16 << 20;

/// The memory of one traced process.
#[derive(Clone, Copy, Debug)]
pub struct Remote {
    pid: Pid,
}

impl Remote {
    pub fn new(pid: u32) -> Self {
        Remote {
            pid: Pid::from_raw(pid as i32),
        }
    }

    /// Read exactly `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, Errno> {
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let n = self.read_some(addr + done as u64, &mut buf[done..])?;
            if n == 0 {
                return Err(Errno::EFAULT);
            }
            done += n;
        }
        Ok(buf)
    }

    fn read_some(&self, addr: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        if addr == 0 {
            return Err(Errno::EFAULT);
        }
        let remote = [RemoteIoVec {
            base: addr as usize,
            len: buf.len(),
        }];
        let mut local = [IoSliceMut::new(buf)];
        process_vm_readv(self.pid, &mut local, &remote)
    }

    /// Read a NUL-terminated string, in chunks that never cross a page
    /// boundary (the next page may be unmapped).
    pub fn read_cstr(&self, addr: u64) -> Result<Vec<u8>, Errno> {
        self.read_cstr_max(addr, MAX_CSTR)
    }

    /// Read a NUL-terminated string of at most `max` bytes (truncated beyond).
    pub fn read_cstr_max(&self, addr: u64, max: usize) -> Result<Vec<u8>, Errno> {
        let mut out = Vec::new();
        let mut at = addr;
        let mut chunk = vec![0u8; PAGE as usize];
        while out.len() < max {
            let to_page_end = (PAGE - at % PAGE) as usize;
            let n = self.read_some(at, &mut chunk[..to_page_end])?;
            if n == 0 {
                return Err(Errno::EFAULT);
            }
            if let Some(z) = chunk[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..z]);
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
            at += n as u64;
        }
        out.truncate(max);
        Ok(out)
    }

    /// Write `data` at `addr` (process_vm_writev), all of it or an error.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno> {
        use nix::sys::uio::process_vm_writev;
        if addr == 0 {
            return Err(Errno::EFAULT);
        }
        let mut done = 0;
        while done < data.len() {
            let remote = [RemoteIoVec {
                base: addr as usize + done,
                len: data.len() - done,
            }];
            let local = [std::io::IoSlice::new(&data[done..])];
            let n = process_vm_writev(self.pid, &local, &remote)?;
            if n == 0 {
                return Err(Errno::EFAULT);
            }
            done += n;
        }
        Ok(())
    }

    pub fn read_u64s(&self, addr: u64, count: usize) -> Result<Vec<u64>, Errno> {
        let b = self.read(addr, count * 8)?;
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    }

    pub fn read_i32s(&self, addr: u64, count: usize) -> Result<Vec<i32>, Errno> {
        let b = self.read(addr, count * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap_or([0; 4])))
            .collect())
    }

    /// The concatenated source of `glShaderSource(shader, count, strings, lengths)`:
    /// `lengths` NULL or a negative entry means NUL-terminated.
    pub fn shader_source(&self, count: i32, strings: u64, lengths: u64) -> Result<String, Errno> {
        Ok(self.strings(count, strings, lengths)?.concat())
    }

    /// Each string of a `(count, strings, lengths)` array argument (the
    /// paths of `glCompileShaderIncludeARB`, the strings of
    /// `glShaderSource`): `lengths` NULL or a negative entry means
    /// NUL-terminated.
    pub fn strings(&self, count: i32, strings: u64, lengths: u64) -> Result<Vec<String>, Errno> {
        if count <= 0 {
            return Ok(Vec::new());
        }
        let count = count as usize;
        let ptrs = self.read_u64s(strings, count)?;
        let lens = if lengths != 0 {
            Some(self.read_i32s(lengths, count)?)
        } else {
            None
        };
        ptrs.iter()
            .enumerate()
            .map(|(i, p)| self.string(*p, lens.as_ref().map_or(-1, |l| l[i])))
            .collect()
    }

    /// The string at `addr`: `len` bytes, or NUL-terminated if `len` < 0.
    pub fn string(&self, addr: u64, len: i32) -> Result<String, Errno> {
        let bytes = match usize::try_from(len) {
            Ok(n) => self.read(addr, n)?,
            Err(_) => self.read_cstr(addr)?,
        };
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_memory() {
        // process_vm_readv on ourselves needs no ptrace permission.
        let r = Remote::new(std::process::id());
        let a = b"#version 330\n\0".to_vec();
        let b = b"void main(){}".to_vec();
        let ptrs: [u64; 2] = [a.as_ptr() as u64, b.as_ptr() as u64];
        let lens: [i32; 2] = [-1, b.len() as i32];
        let s = r
            .shader_source(2, ptrs.as_ptr() as u64, lens.as_ptr() as u64)
            .unwrap();
        assert_eq!(s, "#version 330\nvoid main(){}");
        assert_eq!(r.read_cstr(a.as_ptr() as u64).unwrap(), b"#version 330\n");
        assert!(r.read(0, 4).is_err());
        let mut target = [0u8; 4];
        r.write(target.as_mut_ptr() as u64, &[1, 2, 3, 4]).unwrap();
        assert_eq!(std::hint::black_box(target), [1, 2, 3, 4]);
    }
}
