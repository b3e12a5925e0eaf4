//! The registry of base names: every set and relation the engine hands a
//! model, with its kind, when it is computed and what it means. MODELS.md's
//! "Static base names" and "Dynamic base names" tables document exactly these
//! (a test compares them). [`DYNAMIC_NAMES`] and [`GROWING_NAMES`] are
//! derived from the table.

/// Whether a base name is a set of events or a relation over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Set,
    Relation,
}

/// When the engine computes a base name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Once per test (per combination of thread paths).
    Static,
    /// Once per candidate execution.
    Dynamic,
}

/// One registered base name (or numbered family of names).
#[derive(Clone, Copy, Debug)]
pub struct BaseName {
    /// The name, or the prefix of a numbered family (`SC` for `SC0`, `SC1`...).
    pub name: &'static str,
    /// `SC0`, `SC1`... rather than `SC` itself.
    pub numbered: bool,
    pub kind: Kind,
    pub stage: Stage,
    /// Grows while the reads-from search assigns reads (a check monotone in
    /// the growing names can prune partial assignments).
    pub grows: bool,
    /// What it holds, in one line.
    pub meaning: &'static str,
}

impl BaseName {
    /// Whether `name` is this base name (or a member of this family).
    pub fn matches(&self, name: &str) -> bool {
        if !self.numbered {
            return name == self.name;
        }
        name.strip_prefix(self.name)
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The name of member `k` of a numbered family.
    pub fn numbered_name(&self, k: usize) -> String {
        format!("{}{k}", self.name)
    }
}

pub const R: &str = "R";
pub const W: &str = "W";
pub const M: &str = "M";
pub const RMW: &str = "RMW";
pub const A: &str = "A";
pub const MEMBAR: &str = "MEMBAR";
pub const CBAR: &str = "CBAR";
pub const GF: &str = "GF";
pub const F: &str = "F";
pub const ACQ: &str = "ACQ";
pub const REL: &str = "REL";
pub const SEMAV: &str = "SEMAV";
pub const SEMVIS: &str = "SEMVIS";
pub const SEQCST: &str = "SEQCST";
pub const ATOMICLOC: &str = "ATOMICLOC";
pub const AV: &str = "AV";
pub const VIS: &str = "VIS";
pub const NONPRIV: &str = "NONPRIV";
pub const PRIV: &str = "PRIV";
pub const AVDEVICE: &str = "AVDEVICE";
pub const VISDEVICE: &str = "VISDEVICE";
pub const ILBEGIN: &str = "ILBEGIN";
pub const ILEND: &str = "ILEND";
pub const FRAG: &str = "FRAG";
pub const TESC: &str = "TESC";
pub const LEGACY: &str = "LEGACY";
pub const OUTPUT: &str = "OUTPUT";
pub const INPUT: &str = "INPUT";
pub const VERT: &str = "VERT";
pub const SGEN: &str = "sgen";
pub const SHCALL: &str = "SHCALL";
pub const SCALL: &str = "scall";
pub const SCR: &str = "scr";
pub const RT: &str = "RT";
pub const RTDATA: &str = "RTDATA";
pub const CMLD: &str = "CMLD";
pub const CMST: &str = "CMST";
pub const SCM: &str = "scm";
pub const DEALLOC: &str = "DEALLOC";
pub const EXECWG: &str = "EXECWG";
/// Prefix of the storage-class sets `SC0`, `SC1`...
pub const SC: &str = "SC";
/// Prefix of the semantics storage-class sets `SEMSC0`, `SEMSC1`...
pub const SEMSC: &str = "SEMSC";
/// Prefix of `DSC0`, `DSC1`...: accesses in the k-th storage class some
/// semantics of the program names (dense numbering).
pub const DSC: &str = "DSC";
/// Prefix of `DSEMSC0`, `DSEMSC1`...: operations whose semantics include
/// the k-th storage class some semantics names.
pub const DSEMSC: &str = "DSEMSC";
pub const SCOPEINV: &str = "SCOPEINV";
pub const SCOPESG: &str = "SCOPESG";
pub const SCOPEWG: &str = "SCOPEWG";
pub const SCOPEFI: &str = "SCOPEFI";
pub const SCOPESC: &str = "SCOPESC";
pub const SCOPEQF: &str = "SCOPEQF";
pub const SCOPEDEV: &str = "SCOPEDEV";
pub const SCOPECD: &str = "SCOPECD";
pub const PO: &str = "po";
pub const UNSEQ: &str = "unseq";
pub const SDEV: &str = "sdev";
pub const STHD: &str = "sthd";
pub const SSG: &str = "ssg";
pub const SWG: &str = "swg";
pub const SQF: &str = "sqf";
pub const SLOC: &str = "sloc";
pub const SREF: &str = "sref";
pub const SSW: &str = "ssw";
pub const SCBARINST: &str = "scbarinst";
pub const SFI: &str = "sfi";
pub const RASTO: &str = "rasto";
pub const RF: &str = "rf";
pub const RFINIT: &str = "RFINIT";
pub const ASMO: &str = "asmo";
pub const CO: &str = "co";
pub const SCO: &str = "sco";
pub const ILO: &str = "ilo";
pub const HOST: &str = "HOST";
pub const API: &str = "API";
pub const AVHOST: &str = "AVHOST";
pub const VISHOST: &str = "VISHOST";
pub const DOMHD: &str = "DOMHD";
pub const DOMDH: &str = "DOMDH";
pub const APIAV: &str = "APIAV";
pub const APIVIS: &str = "APIVIS";
pub const APIINC: &str = "apiinc";
pub const APISSW: &str = "apissw";
pub const COARSE: &str = "COARSE";
pub const CDNARROW: &str = "CDNARROW";
pub const CLENQ: &str = "clenq";
pub const CLWAIT: &str = "clwait";
pub const CLCOMPL: &str = "clcompl";
pub const CLHOSTWAIT: &str = "clhostwait";
pub const CLKSTART: &str = "clkstart";
pub const CLKEND: &str = "clkend";
pub const CLMAPINC: &str = "clmapinc";
pub const CLUNMAPINC: &str = "clunmapinc";

const fn entry(
    name: &'static str,
    kind: Kind,
    stage: Stage,
    grows: bool,
    meaning: &'static str,
) -> BaseName {
    BaseName {
        name,
        numbered: false,
        kind,
        stage,
        grows,
        meaning,
    }
}

const fn set(name: &'static str, meaning: &'static str) -> BaseName {
    entry(name, Kind::Set, Stage::Static, false, meaning)
}

const fn rel(name: &'static str, meaning: &'static str) -> BaseName {
    entry(name, Kind::Relation, Stage::Static, false, meaning)
}

const fn numbered_set(prefix: &'static str, meaning: &'static str) -> BaseName {
    BaseName {
        numbered: true,
        ..set(prefix, meaning)
    }
}

/// Every base name, static ones first.
pub const BASE_NAMES: &[BaseName] = &[
    set(R, "reads (an RMW is both a read and a write)"),
    set(W, "writes"),
    set(M, "memory accesses (R | W)"),
    set(RMW, "atomic read-modify-writes (R & W)"),
    set(A, "atomic accesses"),
    set(MEMBAR, "memory barriers (OpMemoryBarrier)"),
    set(CBAR, "control barriers (OpControlBarrier)"),
    set(
        GF,
        "group functions (OpenCL work_group_/sub_group_ broadcast, reduce, scan, any, all)",
    ),
    set(
        F,
        "memory barriers, and control barriers with acquire and/or release semantics",
    ),
    set(ACQ, "acquire semantics (acquire-release included)"),
    set(REL, "release semantics (acquire-release included)"),
    set(SEMAV, "MakeAvailable in the semantics"),
    set(SEMVIS, "MakeVisible in the semantics"),
    set(SEQCST, "sequentially consistent operations"),
    set(
        ATOMICLOC,
        "memory accesses to a location some atomic operation accesses",
    ),
    set(
        AV,
        "per-instruction availability (MakePointerAvailable, atomic writes)",
    ),
    set(
        VIS,
        "per-instruction visibility (MakePointerVisible, atomic reads)",
    ),
    set(NONPRIV, "non-private memory accesses"),
    set(PRIV, "private memory accesses"),
    set(AVDEVICE, "device-domain availability operations"),
    set(VISDEVICE, "device-domain visibility operations"),
    set(ILBEGIN, "OpBeginInvocationInterlockEXT"),
    set(ILEND, "OpEndInvocationInterlockEXT"),
    set(FRAG, "events of fragment shader invocations"),
    set(TESC, "events of TessellationControl invocations"),
    set(
        LEGACY,
        "every event of a legacy program (SPIR-V `OpMemoryModel` GLSL450 or Simple)",
    ),
    set(OUTPUT, "memory accesses to Output variables"),
    set(INPUT, "memory accesses to Input variables"),
    set(VERT, "events of Vertex invocations"),
    set(
        RT,
        "events of invocations of ray tracing stages (rgen rint rahit rchit rmiss rcall)",
    ),
    set(
        SHCALL,
        "shader call instructions (OpTraceRayKHR, OpExecuteCallableKHR, OpReportIntersectionKHR)",
    ),
    set(
        CMLD,
        "element loads of cooperative matrix load instructions (cmld)",
    ),
    set(
        CMST,
        "element stores of cooperative matrix store instructions (cmst)",
    ),
    set(
        RTDATA,
        "memory accesses to CallableDataKHR, IncomingCallableDataKHR, RayPayloadKHR, HitAttributeKHR, IncomingRayPayloadKHR variables",
    ),
    set(DEALLOC, "deallocations (free)"),
    set(
        EXECWG,
        "control barriers whose execution scope is Workgroup",
    ),
    set(HOST, "events of host threads"),
    set(
        COARSE,
        "OpenCL host tests: memory accesses of buffers and coarse-grained SVM",
    ),
    set(
        CDNARROW,
        "OpenCL host tests: device accesses whose CrossDevice scope acts as Device (not fine-grained SVM with atomics)",
    ),
    set(
        API,
        "API operations (host calls and commands of queue submissions)",
    ),
    set(
        AVHOST,
        "availability operations to the host domain (flush; host writes to coherent memory)",
    ),
    set(
        VISHOST,
        "visibility operations from the host domain (invalidate; host reads of coherent memory)",
    ),
    set(
        DOMHD,
        "memory domain operations from host to device (submit; HOST_WRITE source access)",
    ),
    set(
        DOMDH,
        "memory domain operations from device to host (HOST_READ/HOST_WRITE destination access)",
    ),
    set(
        APIAV,
        "API availability operations to the device domain (memory dependencies, signals)",
    ),
    set(
        APIVIS,
        "API visibility operations from the device domain (memory dependencies, waits, submit)",
    ),
    numbered_set(SC, "memory accesses in storage class k"),
    numbered_set(SEMSC, "operations whose semantics include storage class k"),
    numbered_set(
        DSC,
        "memory accesses in the k-th storage class named by some semantics",
    ),
    numbered_set(
        DSEMSC,
        "operations whose semantics include the k-th storage class named by some semantics",
    ),
    set(SCOPEINV, "operations of memory scope Invocation"),
    set(SCOPESG, "operations of memory scope Subgroup"),
    set(SCOPEWG, "operations of memory scope Workgroup"),
    set(SCOPEFI, "operations of memory scope FragmentInterlock"),
    set(SCOPESC, "operations of memory scope ShaderCallKHR"),
    set(SCOPEQF, "operations of memory scope QueueFamily"),
    set(SCOPEDEV, "operations of memory scope Device"),
    set(SCOPECD, "operations of memory scope CrossDevice"),
    rel(
        PO,
        "program order (strict, transitive, within one invocation)",
    ),
    rel(
        UNSEQ,
        "unsequenced operands of one C binary expression (symmetric)",
    ),
    rel(SDEV, "same device"),
    rel(STHD, "same thread"),
    rel(SSG, "same subgroup"),
    rel(SWG, "same workgroup"),
    rel(SQF, "same queue family"),
    rel(SLOC, "memory accesses to the same location"),
    rel(SREF, "memory accesses through the same reference"),
    rel(
        SSW,
        "system-synchronizes-with, as declared and derived from API operations",
    ),
    rel(
        APISSW,
        "system-synchronizes-with derived from API operations (execution dependency chains)",
    ),
    rel(
        APIINC,
        "source scope (access to API availability op) and destination scope (API visibility op to access)",
    ),
    rel(
        CLENQ,
        "OpenCL: the host call enqueuing a command to the command's start",
    ),
    rel(
        CLWAIT,
        "OpenCL: a waited command's completion to the start of the command waiting on it",
    ),
    rel(CLCOMPL, "OpenCL: a command's start to its completion"),
    rel(
        CLHOSTWAIT,
        "OpenCL: a command's completion to the host call waiting on it",
    ),
    rel(
        CLKSTART,
        "OpenCL: a kernel command's start to every event of its work-items",
    ),
    rel(
        CLKEND,
        "OpenCL: every event of a kernel's work-items to the kernel's completion",
    ),
    rel(
        CLMAPINC,
        "OpenCL: a map command's completion to the host accesses of the memory it maps",
    ),
    rel(
        CLUNMAPINC,
        "OpenCL: host accesses of memory to the start of a command unmapping it",
    ),
    rel(SCBARINST, "control barriers of the same dynamic instance"),
    rel(
        SCM,
        "element accesses of one dynamic instance of a cooperative matrix instruction",
    ),
    rel(
        SCALL,
        "a shader call instruction to the events of the invocation it creates",
    ),
    rel(
        SCR,
        "events of shader-call-related ray tracing invocations (one shader call instance)",
    ),
    rel(
        SGEN,
        "events of an invocation to events of an invocation it contributes to generating",
    ),
    rel(
        SFI,
        "events of overlapping fragment invocations (one fragment interlock instance)",
    ),
    rel(
        RASTO,
        "rasterization order between overlapping fragment invocations",
    ),
    entry(RF, Kind::Relation, Stage::Dynamic, true, "reads-from"),
    entry(
        RFINIT,
        Kind::Set,
        Stage::Dynamic,
        true,
        "reads of the initial value",
    ),
    entry(
        ASMO,
        Kind::Relation,
        Stage::Dynamic,
        false,
        "scoped modification order",
    ),
    entry(
        CO,
        Kind::Relation,
        Stage::Dynamic,
        false,
        "coherence order (total per location)",
    ),
    entry(
        SCO,
        Kind::Relation,
        Stage::Dynamic,
        false,
        "total order of the SC operations",
    ),
    entry(
        ILO,
        Kind::Relation,
        Stage::Dynamic,
        false,
        "interlock order of overlapping fragment invocations",
    ),
];

/// The registered base name (or family) `name` belongs to.
pub fn lookup(name: &str) -> Option<&'static BaseName> {
    BASE_NAMES.iter().find(|b| b.matches(name))
}

const fn dynamic_count(growing_only: bool) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < BASE_NAMES.len() {
        let b = &BASE_NAMES[i];
        if matches!(b.stage, Stage::Dynamic) && (b.grows || !growing_only) {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn dynamic_names<const N: usize>(growing_only: bool) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < BASE_NAMES.len() {
        let b = &BASE_NAMES[i];
        if matches!(b.stage, Stage::Dynamic) && (b.grows || !growing_only) {
            out[n] = b.name;
            n += 1;
        }
        i += 1;
    }
    out
}

/// The dynamic base names a candidate execution provides to a model.
pub const DYNAMIC_NAMES: &[&str] = &dynamic_names::<{ dynamic_count(false) }>(false);

/// The dynamic names that grow during the reads-from search (`asmo`/`co`
/// and `sco` are fixed first).
pub const GROWING_NAMES: &[&str] = &dynamic_names::<{ dynamic_count(true) }>(true);

#[cfg(test)]
mod tests {
    use super::*;

    /// (registry entry, kind, stage, grows) for every name MODELS.md's
    /// base-name tables document.
    fn documented() -> Vec<(&'static str, bool, Kind, Stage, bool)> {
        let doc = include_str!("../../MODELS.md");
        let mut out = Vec::new();
        let mut stage = None;
        let mut kind = None;
        for line in doc.lines() {
            if let Some(h) = line.strip_prefix("## ") {
                stage = if h.starts_with("Static base names") {
                    Some(Stage::Static)
                } else if h.starts_with("Dynamic base names") {
                    Some(Stage::Dynamic)
                } else {
                    None
                };
                kind = None;
                continue;
            }
            match line.trim() {
                "Sets:" => kind = Some(Kind::Set),
                "Relations:" => kind = Some(Kind::Relation),
                _ => {}
            }
            let Some(stage) = stage else { continue };
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if !line.starts_with("| `") || cells.len() < 3 {
                continue;
            }
            let (kind, grows) = match stage {
                Stage::Static => (kind.expect("a Sets: or Relations: table"), false),
                Stage::Dynamic => {
                    let k = match cells[2] {
                        "set" => Kind::Set,
                        "relation" => Kind::Relation,
                        other => panic!("unknown kind `{other}` in: {line}"),
                    };
                    (k, cells[3] == "yes")
                }
            };
            let names: Vec<&str> = cells[1].split('`').skip(1).step_by(2).collect();
            for n in &names {
                // `SC0` ... `SCn` documents the family once.
                if let Some(prefix) = n.strip_suffix('n')
                    && names.contains(&format!("{prefix}0").as_str())
                {
                    continue;
                }
                let b = lookup(n).unwrap_or_else(|| panic!("`{n}` is documented, not registered"));
                out.push((b.name, b.numbered, kind, stage, grows));
            }
        }
        out
    }

    #[test]
    fn models_md_documents_the_registry() {
        let doc = documented();
        for b in BASE_NAMES {
            let entry = (b.name, b.numbered, b.kind, b.stage, b.grows);
            assert!(
                doc.contains(&entry),
                "registered base name `{}` ({:?}, {:?}, grows: {}) is not in MODELS.md's tables as such",
                b.name,
                b.kind,
                b.stage,
                b.grows
            );
        }
        assert_eq!(doc.len(), BASE_NAMES.len(), "a name is documented twice");
    }

    #[test]
    fn derived_lists() {
        assert_eq!(DYNAMIC_NAMES, ["rf", "RFINIT", "asmo", "co", "sco", "ilo"]);
        assert_eq!(GROWING_NAMES, ["rf", "RFINIT"]);
        assert!(lookup("SC12").is_some_and(|b| b.name == SC));
        assert!(lookup("SEMSC0").is_some_and(|b| b.name == SEMSC));
        assert!(lookup("SCOPEWG").is_some_and(|b| b.name == SCOPEWG));
        assert!(lookup("SC").is_none() && lookup("SCx").is_none());
        assert!(lookup("DSC3").is_some_and(|b| b.name == DSC));
        assert!(lookup("DSEMSC0").is_some_and(|b| b.name == DSEMSC));
    }
}
