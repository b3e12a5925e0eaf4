//! The byte-mutation fuzzers' random numbers and mutations, shared by
//! `fuzz_parsers` and `fuzz_shaders` so that a seed means the same mutants
//! in both (`VKMM_FUZZ_SEED=N` reruns one).

/// A xorshift64* generator: small, seedable, the same on every platform.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A random span `start..end` of `len` bytes (possibly empty).
pub fn span(rng: &mut Rng, len: usize) -> (usize, usize) {
    let start = rng.below(len + 1);
    let end = start + rng.below((len - start).min(64) + 1);
    (start, end)
}

/// One to three random mutations of `bytes`: delete a span, replace it with
/// random bytes, duplicate it (`long_run` times now and then), splice in a
/// span of `other` (another seed), or splice in a word of `words` (a
/// `@@`-separated dictionary).
pub fn mutate(rng: &mut Rng, bytes: &[u8], other: &[u8], words: &str, long_run: usize) -> Vec<u8> {
    let words: Vec<&str> = words.split("@@").collect();
    let mut m = bytes.to_vec();
    for _ in 0..1 + rng.below(3) {
        let (a, b) = span(rng, m.len());
        match rng.below(6) {
            0 => {
                m.drain(a..b);
            }
            1 => {
                let fresh: Vec<u8> = (0..b - a).map(|_| rng.next() as u8).collect();
                m.splice(a..b, fresh);
            }
            2 => {
                let copy = m[a..b].to_vec();
                let times = if rng.below(8) == 0 { long_run } else { 1 };
                for _ in 0..times {
                    m.splice(b..b, copy.iter().copied());
                }
            }
            3 => {
                let (c, d) = span(rng, other.len());
                m.splice(a..a, other[c..d].iter().copied());
            }
            _ => {
                let w = *rng.pick(&words);
                m.splice(a..a, w.bytes());
            }
        }
    }
    m
}
