//! The slot word encoding of arguments and return values
//! (`gldbg_proto::shm::Slot::args`): integers zero/sign-extended to 64 bits,
//! `f32` as its bits in the low half, `f64` as its bits, pointers as addresses.

use core::ffi::c_void;

/// A value that travels in one slot word.
pub trait Word: Sized {
    /// Encode for a slot.
    fn to_word(self) -> u64;
    /// Decode from a slot (truncating integers, reinterpreting float bits).
    fn from_word(word: u64) -> Self;
}

macro_rules! int_word {
    ($($t:ty => $wide:ty),*) => {$(
        impl Word for $t {
            #[inline(always)]
            fn to_word(self) -> u64 { self as $wide as u64 }
            #[inline(always)]
            fn from_word(word: u64) -> Self { word as $t }
        }
    )*};
}
int_word!(i8 => i64, i16 => i64, i32 => i64, i64 => i64, u8 => u64, u16 => u64, u32 => u64, u64 => u64);

impl Word for f32 {
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline(always)]
    fn from_word(word: u64) -> Self {
        f32::from_bits(word as u32)
    }
}

impl Word for f64 {
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_word(word: u64) -> Self {
        f64::from_bits(word)
    }
}

impl Word for *mut c_void {
    #[inline(always)]
    fn to_word(self) -> u64 {
        self as usize as u64
    }
    #[inline(always)]
    fn from_word(word: u64) -> Self {
        word as usize as *mut c_void
    }
}

impl Word for () {
    #[inline(always)]
    fn to_word(self) -> u64 {
        0
    }
    #[inline(always)]
    fn from_word(_: u64) -> Self {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        assert_eq!((-1i32).to_word(), u64::MAX);
        assert_eq!(i32::from_word(u64::MAX), -1);
        assert_eq!(0xffff_ffffu32.to_word(), 0xffff_ffff);
        assert_eq!(f32::from_word(1.5f32.to_word()), 1.5);
        assert_eq!(1.5f32.to_word() >> 32, 0);
        assert_eq!(f64::from_word(2.25f64.to_word()), 2.25);
    }
}
