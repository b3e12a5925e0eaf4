//! The arithmetic of AMD's POPS mechanism (../shared/spec/amd-pops.rst),
//! checked exhaustively by the unit tests below: the 10-bit wrapping wave
//! IDs a wave compares to decide whether it may enter its ordered section,
//! GFX9's off-by-one, and the intrawave collision layers. The models
//! (`models/pops*.cat`) state what these mechanisms guarantee; the tests
//! here show the arithmetic gives exactly that: the comparison waits for
//! the newest overlapped wave in every case when the ID is reported right
//! (GFX10+); with GFX9's ID one less behind a wraparound, the uncorrected
//! comparison lets a wave enter early exactly for the pairs behind a
//! wraparound
//! (`models/pops-gfx9-offbyone.cat`), and the document's correction fixes
//! all of them but the 1023 pairs 1023 waves apart, whose reported ID equals
//! the current one: that wave waits forever (docs/interlock.md).

/// The mask of a 10-bit wave ID.
pub const WAVE_ID_MASK: u32 = 0x3ff;

/// "Subtracting `current_wave_id + 1` is equivalent to adding
/// `~current_wave_id`": a 10-bit wave ID remapped to a monotonically
/// increasing 32-bit value relative to the current wave (the current wave
/// maps to 0xFFFFFFFF).
pub fn remap(id10: u32, current10: u32) -> u32 {
    (id10 & WAVE_ID_MASK).wrapping_add(!(current10 & WAVE_ID_MASK))
}

/// The entering test of the document's pseudocode: whether a wave with
/// 10-bit ID `current` whose reported newest overlapped wave ID is
/// `newest` may enter its ordered section when the exiting wave ID (the
/// wave that will exit next) is `exiting`. `gfx9_fix`: add 1 to the newest
/// overlapped ID when it is greater than the current ID ("if the 10-bit
/// newest overlapped wave ID is greater than the 10-bit current wave ID
/// (meaning that it's behind the last wraparound point), 1 needs to be
/// added").
pub fn may_enter(current: u32, newest: u32, exiting: u32, gfx9_fix: bool) -> bool {
    let mut newest = newest & WAVE_ID_MASK;
    if gfx9_fix && newest > (current & WAVE_ID_MASK) {
        newest += 1;
    }
    let offset = !(current & WAVE_ID_MASK);
    let newest_remapped = newest.wrapping_add(offset);
    (exiting & WAVE_ID_MASK).wrapping_add(offset) > newest_remapped
}

/// The newest overlapped wave ID GFX9 reports for a true newest overlapped
/// wave `newest` of wave `current`: one less when the true ID is behind the
/// last wraparound point (greater than the current ID), the error the
/// document's correction undoes.
pub fn gfx9_reported_newest(current: u32, newest: u32) -> u32 {
    let (c, n) = (current & WAVE_ID_MASK, newest & WAVE_ID_MASK);
    if n > c { n - 1 } else { n }
}

/// The intrawave collision layers of a wave: "the mask of whether each quad
/// in the wave starts a new layer of overlapping invocations, and thus the
/// ordered section code for them needs to be executed after running it for
/// all lanes with indices preceding that quad index multiplied by 4". Lane
/// ranges `start..end`, in execution order, for a wave of `lanes` lanes
/// (32 or 64); bits above the wave's quads are ignored ("The rest of the
/// bits in the argument need to be ignored").
pub fn intrawave_layers(mask: u32, lanes: u32) -> Vec<std::ops::Range<u32>> {
    let quads = lanes / 4;
    let mut starts: Vec<u32> = (1..quads)
        .filter(|q| mask & (1 << q) != 0)
        .map(|q| q * 4)
        .collect();
    starts.push(lanes);
    let mut out = Vec::new();
    let mut start = 0;
    for s in starts {
        out.push(start..s);
        start = s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wave `d` places before `current` (1 <= d <= 1023), as a 10-bit ID.
    fn before(current: u32, d: u32) -> u32 {
        current.wrapping_sub(d) & WAVE_ID_MASK
    }

    #[test]
    fn remapping_orders_the_last_1024_waves_monotonically() {
        // "the largest value, 0xFFFFFFFF, will correspond to the current
        // wave, 10-bit values up to the current wave ID will be in a range
        // near 0xFFFFFFFF growing towards it, and wave IDs from before the
        // last wraparound will be near 0 increasing away from it"
        for current in 0..=WAVE_ID_MASK {
            assert_eq!(remap(current, current), u32::MAX);
            let mut previous = None;
            for d in (0..=1023).rev() {
                let r = remap(before(current, d), current);
                if let Some(p) = previous {
                    assert!(r > p, "current {current}, distance {d}");
                }
                previous = Some(r);
            }
        }
    }

    #[test]
    fn every_wave_id_pair_waits_exactly_for_the_newest_overlapped_wave() {
        // All 2^10 x 2^10 (current, newest overlapped) ID pairs: the newest
        // overlapped wave is an earlier wave (distance 1..1023; the pair
        // with equal IDs is the current wave itself, which cannot be its
        // own overlapped wave). The exiting wave ID sweeps the window from
        // the oldest wave to the current one: the wave may enter exactly
        // when the exiting wave is later than the newest overlapped one
        // (that wave has exited).
        let mut gfx9_wrong = 0u64;
        let mut gfx9_fix_missed = 0u64;
        for current in 0..=WAVE_ID_MASK {
            for newest in 0..=WAVE_ID_MASK {
                if newest == current {
                    continue;
                }
                let nd = current.wrapping_sub(newest) & WAVE_ID_MASK;
                let behind_wraparound = newest > current;
                let mut missed_pair = false;
                let mut early_pair = false;
                // exiting waves from the newest overlapped one to the
                // current one, and the one before the newest overlapped
                for ed in [nd + 1, nd, nd - 1, 1, 0] {
                    if ed > 1023 {
                        continue;
                    }
                    let exiting = before(current, ed);
                    let truth = ed < nd;
                    // GFX10+ report the true ID; GFX9 one less behind a
                    // wraparound, which the fix undoes
                    assert_eq!(may_enter(current, newest, exiting, false), truth);
                    let reported = gfx9_reported_newest(current, newest);
                    if may_enter(current, reported, exiting, true) != truth {
                        // The one pair the correction misses: the newest
                        // overlapped wave 1023 waves back (ID current + 1),
                        // reported one less, is the current ID itself;
                        // "greater than the 10-bit current wave ID" fails,
                        // the remapped newest ID is the largest value, and
                        // no exiting wave ever exceeds it: the wave waits
                        // forever.
                        assert_eq!(newest, (current + 1) & WAVE_ID_MASK);
                        assert!(truth);
                        missed_pair = true;
                    }
                    let unfixed = may_enter(current, reported, exiting, false);
                    if unfixed != truth {
                        // only behind a wraparound: by entering while the
                        // newest overlapped wave is the exiting one, or (the
                        // corner above) by waiting forever
                        assert!(behind_wraparound);
                        if unfixed {
                            assert_eq!(ed, nd);
                            early_pair = true;
                        } else {
                            assert_eq!(newest, (current + 1) & WAVE_ID_MASK);
                        }
                    }
                }
                gfx9_fix_missed += u64::from(missed_pair);
                gfx9_wrong += u64::from(early_pair);
            }
        }
        // the pairs behind a wraparound: current c has 1023 - c IDs above it
        let behind: u64 = (0..=WAVE_ID_MASK as u64).map(|c| 1023 - c).sum();
        assert_eq!(behind, 523_776);
        // uncorrected, every pair behind a wraparound but the corner enters
        // early
        assert_eq!(gfx9_wrong, behind - 1023);
        // every current ID but 1023 (whose ID + 1 wraps to 0, not behind)
        assert_eq!(gfx9_fix_missed, 1023);
    }

    #[test]
    fn intrawave_layers_follow_the_documents_example() {
        // "if the intrawave collision mask is 0b0000001110000100 ... first
        // only for quads 1:0 (lanes 7:0), then only for quads 6:2 (lanes
        // 27:8), then for quad 7 (lanes 31:28), then for quad 8 (lanes
        // 35:32), and then for the remaining quads 15:9 (lanes 63:36)"
        let mask = (1 << 2) | (1 << 7) | (1 << 8) | (1 << 9);
        assert_eq!(
            intrawave_layers(mask, 64),
            vec![0..8, 8..28, 28..32, 32..36, 36..64]
        );
        // bits beyond the wave's quads are ignored; bit 0 starts nothing new
        assert_eq!(
            intrawave_layers(mask | 1 | (1 << 20), 64),
            intrawave_layers(mask, 64)
        );
        assert_eq!(intrawave_layers(0, 32), vec![0..32]);
        assert_eq!(intrawave_layers(1 << 9, 32), vec![0..32]);
    }
}
