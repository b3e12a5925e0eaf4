//! Instruction attributes shared by the front ends.
//!
//! Owns the attribute tokens every input format gives a memory access or a
//! barrier (`atom`, `acq`, `rel`, a scope, the storage class `scN`, the
//! semantics storage classes `semscN`, `semav`, `semvis`, `av`, `vis`,
//! `nonpriv`), the implicit attributes the Vulkan memory model gives atomics
//! (atomics are non-private, atomic writes make their pointer available,
//! atomic reads make it visible, `av`/`vis` imply non-private), and the
//! validation rules an instruction must pass. Each front end recognises its
//! own opcode words and scope spellings ([`Spelling`]) and hands every other
//! token to [`Attrs::token`].
//!
//! Errors are `(column, message)` pairs; the caller adds the file and line.

use crate::ir::{AccessKind, Instruction, Interface, OpKind, Order, Scope, StorageClass};

/// An error located at a column of the current line.
pub(super) type AttrError = (usize, String);

/// How a format spells its attribute tokens.
pub(super) struct Spelling {
    /// Scope tokens.
    pub scopes: &'static [(&'static str, Scope)],
    /// Whether `acq_rel` is a token (acquire and release at once).
    pub acq_rel: bool,
    /// The opcodes `atom` applies to, for messages.
    pub atomic_ops: &'static str,
}

/// The Khronos Alloy `.test` spelling.
pub(super) const ALLOY: Spelling = Spelling {
    scopes: &[
        ("scopesg", Scope::Subgroup),
        ("scopewg", Scope::Workgroup),
        ("scopefi", Scope::FragmentInterlock),
        ("scopeqf", Scope::QueueFamily),
        ("scopedev", Scope::Device),
        ("scopeinv", Scope::Invocation),
        ("scopecd", Scope::CrossDevice),
        ("scopeshcall", Scope::ShaderCall),
    ],
    acq_rel: false,
    atomic_ops: "ld/st",
};

/// The Dat3M Vulkan `.litmus` spelling.
pub(super) const LITMUS: Spelling = Spelling {
    scopes: &[
        ("sg", Scope::Subgroup),
        ("wg", Scope::Workgroup),
        ("fi", Scope::FragmentInterlock),
        ("qf", Scope::QueueFamily),
        ("dv", Scope::Device),
        ("inv", Scope::Invocation),
        ("cd", Scope::CrossDevice),
        ("shcall", Scope::ShaderCall),
    ],
    acq_rel: true,
    atomic_ops: "ld, st and rmw",
};

/// The attribute tokens every spelling shares (scopes and storage classes
/// come from the spelling).
const FLAGS: &[&str] = &[
    "atom",
    "acq",
    "rel",
    "av",
    "vis",
    "semav",
    "semvis",
    "nonpriv",
    "sc0",
    "sc1",
    "sc2",
    "sc3",
    "semsc0",
    "semsc1",
    "semsc2",
    "semsc3",
    "avtexel",
    "vistexel",
    "nonprivtexel",
    "avelem",
    "viselem",
    "nonprivelem",
    "output",
    "input",
    "callable",
    "incallable",
    "payload",
    "hitattr",
    "inpayload",
];

/// The image (texel) and tensor (element) spellings of `av`, `vis` and
/// `nonpriv`: `MakeTexelAvailable`, `MakeTexelVisible`, `NonPrivateTexel`
/// and `MakeElementAvailableARM`, `MakeElementVisibleARM`,
/// `NonPrivateElementARM` (docs/format-vulkan-litmus.md).
const FLAVOURED: &[(&str, &str, AccessKind)] = &[
    ("avtexel", "av", AccessKind::Texel),
    ("vistexel", "vis", AccessKind::Texel),
    ("nonprivtexel", "nonpriv", AccessKind::Texel),
    ("avelem", "av", AccessKind::ElementArm),
    ("viselem", "vis", AccessKind::ElementArm),
    ("nonprivelem", "nonpriv", AccessKind::ElementArm),
];

/// The `av`/`vis`/`nonpriv` token spelling `base` for an access of `kind`.
pub(crate) fn flavoured(base: &'static str, kind: AccessKind) -> &'static str {
    FLAVOURED
        .iter()
        .find(|(_, b, k)| *b == base && *k == kind)
        .map_or(base, |(t, _, _)| t)
}

impl Spelling {
    /// Every attribute token of the spelling (for "did you mean").
    pub fn tokens(&self) -> impl Iterator<Item = &'static str> + '_ {
        let acq_rel = self.acq_rel.then_some("acq_rel");
        FLAGS
            .iter()
            .copied()
            .chain(acq_rel)
            .chain(self.scopes.iter().map(|(n, _)| *n))
    }

    fn scope_list(&self) -> String {
        let names: Vec<&str> = self.scopes.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }
}

/// Where a flag token was written.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    pub col: usize,
    pub tok: &'static str,
}

/// The attribute tokens of one instruction, with their columns.
#[derive(Default, Debug)]
pub(super) struct Attrs {
    pub atom: Option<Mark>,
    pub acq: Option<Mark>,
    pub rel: Option<Mark>,
    pub av: Option<Mark>,
    pub vis: Option<Mark>,
    pub semav: Option<Mark>,
    pub semvis: Option<Mark>,
    pub nonpriv: Option<Mark>,
    /// The kind of access the `av`/`vis`/`nonpriv` tokens spell (pointer,
    /// texel or tensor element), from the first such token.
    pub access: Option<(AccessKind, Mark)>,
    /// `output`: the access goes through a variable in the Output storage
    /// class (Tessellation Output Ordering, Shader I/O).
    pub output: Option<Mark>,
    /// `input`: the access goes through a variable in the Input storage
    /// class (Shader I/O).
    pub input: Option<Mark>,
    /// `callable`, `incallable`, `payload`, `hitattr`, `inpayload`: the
    /// access goes through a variable in one of the ray tracing storage
    /// classes of Shader I/O.
    pub rtdata: Option<(Interface, Mark)>,
    pub scope: Option<(Scope, Mark)>,
    pub sc: Option<(StorageClass, usize)>,
    pub semsc: Vec<(StorageClass, usize)>,
}

/// `sc3` -> Some(3) for prefix "sc".
pub(super) fn class_index(tok: &str, prefix: &str) -> Option<u8> {
    let digits = tok.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn set(slot: &mut Option<Mark>, mark: Mark) -> Result<(), AttrError> {
    match slot {
        Some(prev) if prev.tok == mark.tok => {
            Err((mark.col, format!("`{}` given twice", mark.tok)))
        }
        Some(prev) => Err((mark.col, format!("`{}` repeats `{}`", mark.tok, prev.tok))),
        None => {
            *slot = Some(mark);
            Ok(())
        }
    }
}

impl Attrs {
    /// Records `tok` (written at `col`) if it is an attribute token of the
    /// spelling; `Ok(false)` if it is not one.
    pub fn token(&mut self, tok: &str, col: usize, sp: &Spelling) -> Result<bool, AttrError> {
        let flag = |name: &'static str| Mark { col, tok: name };
        let access = FLAVOURED
            .iter()
            .chain(&[
                ("av", "av", AccessKind::Pointer),
                ("vis", "vis", AccessKind::Pointer),
                ("nonpriv", "nonpriv", AccessKind::Pointer),
            ])
            .find(|(t, _, _)| *t == tok);
        if let Some(&(name, base, kind)) = access {
            let mark = flag(name);
            match self.access {
                Some((prev, m)) if prev != kind => {
                    return Err((
                        col,
                        format!(
                            "`{name}` is a {} flag but `{}` made this a {} access: an instruction accesses memory through a pointer, an image texel or a tensor element, not two of them",
                            kind_name(kind),
                            m.tok,
                            kind_name(prev)
                        ),
                    ));
                }
                Some(_) => {}
                None => self.access = Some((kind, mark)),
            }
            let slot = match base {
                "av" => &mut self.av,
                "vis" => &mut self.vis,
                _ => &mut self.nonpriv,
            };
            set(slot, mark)?;
            return Ok(true);
        }
        match tok {
            "atom" => set(&mut self.atom, flag("atom"))?,
            "acq" => set(&mut self.acq, flag("acq"))?,
            "rel" => set(&mut self.rel, flag("rel"))?,
            "acq_rel" if sp.acq_rel => {
                set(&mut self.acq, flag("acq_rel"))?;
                set(&mut self.rel, flag("acq_rel"))?;
            }
            "semav" => set(&mut self.semav, flag("semav"))?,
            "semvis" => set(&mut self.semvis, flag("semvis"))?,
            _ if Interface::TOKENS
                .iter()
                .any(|&(t, i)| t == tok && i.is_ray_tracing()) =>
            {
                let &(name, interface) = Interface::TOKENS
                    .iter()
                    .find(|(t, _)| *t == tok)
                    .expect("checked above");
                // a variable is in one storage class
                if let Some(m) = self.output.or(self.input).or(self.rtdata.map(|(_, m)| m)) {
                    return Err((
                        col,
                        format!(
                            "`{tok}` repeats `{}`: a variable is in one storage class",
                            m.tok
                        ),
                    ));
                }
                self.rtdata = Some((interface, flag(name)));
            }
            "output" | "input" => {
                // a variable is in one storage class: `output` and `input`
                // exclude each other
                let (slot, other) = if tok == "output" {
                    (&mut self.output, self.input)
                } else {
                    (&mut self.input, self.output)
                };
                if let Some(m) = other.or(self.rtdata.map(|(_, m)| m)) {
                    return Err((
                        col,
                        format!(
                            "`{tok}` repeats `{}`: a variable is in one storage class",
                            m.tok
                        ),
                    ));
                }
                set(slot, flag(if tok == "output" { "output" } else { "input" }))?
            }
            _ => {
                if let Some(&(name, scope)) = sp.scopes.iter().find(|(n, _)| *n == tok) {
                    if let Some((prev, _)) = self.scope {
                        return Err((
                            col,
                            format!(
                                "second scope `{tok}`: the instruction already has {prev} scope"
                            ),
                        ));
                    }
                    self.scope = Some((scope, Mark { col, tok: name }));
                } else if let Some(k) = class_index(tok, "semsc") {
                    // Any class number: storage classes are data (MODELS.md).
                    let k = StorageClass(k);
                    if self.semsc.iter().any(|(c, _)| *c == k) {
                        return Err((col, format!("`{tok}` given twice")));
                    }
                    self.semsc.push((k, col));
                } else if let Some(k) = class_index(tok, "sc") {
                    if self.sc.is_some() {
                        return Err((
                            col,
                            format!("second storage class `{tok}`: each access has exactly one"),
                        ));
                    }
                    self.sc = Some((StorageClass(k), col));
                } else {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Copies the attributes into `ins` and adds the implicit ones. The
    /// caller sets `ins.atomic` first.
    pub fn apply(&self, ins: &mut Instruction) {
        let (acq, rel) = (self.acq.is_some(), self.rel.is_some());
        ins.scope = self.scope.map(|(s, _)| s);
        ins.storage_class = self.sc.map(|(s, _)| s);
        ins.semantics.order = match (acq, rel) {
            (true, true) => Order::AcquireRelease,
            (true, false) => Order::Acquire,
            (false, true) => Order::Release,
            (false, false) => Order::Relaxed,
        };
        ins.semantics.storage_classes = self.semsc.iter().map(|(c, _)| *c).collect();
        ins.semantics.make_available = self.semav.is_some();
        ins.semantics.make_visible = self.semvis.is_some();
        let (av, vis) = (self.av.is_some(), self.vis.is_some());
        ins.make_pointer_available = av || (ins.atomic && ins.is_write());
        ins.make_pointer_visible = vis || (ins.atomic && ins.is_read());
        ins.non_private = self.nonpriv.is_some() || ins.atomic || av || vis;
        ins.access_kind = self.access.map_or(AccessKind::Pointer, |(k, _)| k);
        ins.interface = match (self.output, self.input) {
            (Some(_), _) => Some(Interface::Output),
            (None, Some(_)) => Some(Interface::Input),
            (None, None) => self.rtdata.map(|(i, _)| i),
        };
    }

    /// Checks the attributes of `ins` (built by [`Attrs::apply`]); `op_col`
    /// is the column of the opcode, used when no single token is at fault.
    pub fn validate(
        &self,
        ins: &Instruction,
        op_col: usize,
        sp: &Spelling,
    ) -> Result<(), AttrError> {
        let at = |m: Option<Mark>| m.map(|m| m.col).unwrap_or(op_col);
        let (acq, rel) = (self.acq.is_some(), self.rel.is_some());
        let needs_scope =
            ins.atomic || is_barrier(&ins.kind) || self.av.is_some() || self.vis.is_some();
        if needs_scope && self.scope.is_none() {
            return Err((
                op_col,
                format!(
                    "missing scope: atomics, barriers and av/vis accesses need one of {}",
                    sp.scope_list()
                ),
            ));
        }
        if ins.is_memory_access() && self.sc.is_none() {
            return Err((
                op_col,
                "missing storage class: a memory access needs sc0, sc1, ...".into(),
            ));
        }
        if ins.kind == OpKind::Deallocate {
            if self.sc.is_none() {
                return Err((
                    op_col,
                    "missing storage class: `free` names the storage class of the memory it frees (sc0, sc1, ...)".into(),
                ));
            }
            let other = [
                self.atom,
                self.acq,
                self.rel,
                self.av,
                self.vis,
                self.semav,
                self.semvis,
                self.nonpriv,
                self.output,
                self.input,
                self.rtdata.map(|(_, m)| m),
            ]
            .into_iter()
            .flatten()
            .next()
            .or(self.scope.map(|(_, m)| m));
            if let Some(m) = other.or(self
                .semsc
                .first()
                .map(|&(_, col)| Mark { col, tok: "semsc" }))
            {
                return Err((
                    m.col,
                    format!("`free` takes only a storage class (scN), not `{}`", m.tok),
                ));
            }
            return Ok(());
        }
        if !ins.is_memory_access() {
            if let Some((_, c)) = self.sc {
                return Err((c, "only memory accesses have a storage class".into()));
            }
            for (name, m) in [
                ("output", self.output),
                ("input", self.input),
                (
                    self.rtdata.map_or("", |(_, m)| m.tok),
                    self.rtdata.map(|(_, m)| m),
                ),
                ("nonpriv", self.nonpriv),
                ("av", self.av),
                ("vis", self.vis),
            ] {
                if m.is_some() {
                    return Err((at(m), format!("`{name}` only applies to memory accesses")));
                }
            }
        }
        if matches!(
            ins.kind,
            OpKind::AvailabilityDevice | OpKind::VisibilityDevice
        ) && (self.scope.is_some()
            || acq
            || rel
            || !self.semsc.is_empty()
            || self.atom.is_some())
        {
            return Err((
                op_col,
                "avdevice/visdevice are API-level operations and take no other token".into(),
            ));
        }
        if let Some(m) = self.input
            && ins.is_write()
        {
            return Err((
                m.col,
                "`input`: Input variables are read-only (SPIR-V: \"Input from pipeline. Read only.\")".into(),
            ));
        }
        if self.av.is_some() && ins.kind == OpKind::Load {
            return Err((
                at(self.av),
                "`av` (MakePointerAvailable) applies to writes".into(),
            ));
        }
        if self.vis.is_some() && ins.kind == OpKind::Store {
            return Err((
                at(self.vis),
                "`vis` (MakePointerVisible) applies to reads".into(),
            ));
        }
        if acq && !(ins.atomic && ins.is_read()) && !is_barrier(&ins.kind) {
            return Err((
                at(self.acq),
                "acquire applies to atomic reads and barriers".into(),
            ));
        }
        if rel && !(ins.atomic && ins.is_write()) && !is_barrier(&ins.kind) {
            return Err((
                at(self.rel),
                "release applies to atomic writes and barriers".into(),
            ));
        }
        if ins.kind == OpKind::MemoryBarrier && !acq && !rel {
            return Err((op_col, "a membar needs acq and/or rel semantics".into()));
        }
        if (acq || rel) && self.semsc.is_empty() {
            return Err((
                op_col,
                "acquire/release semantics need at least one storage class in the semantics (semsc0, semsc1, ...)".into(),
            ));
        }
        if !self.semsc.is_empty() && !acq && !rel {
            return Err((
                op_col,
                "storage class semantics (semscN) need acq or rel".into(),
            ));
        }
        if self.semav.is_some() && !rel {
            return Err((
                at(self.semav),
                "MakeAvailable (semav) needs release semantics".into(),
            ));
        }
        if self.semvis.is_some() && !acq {
            return Err((
                at(self.semvis),
                "MakeVisible (semvis) needs acquire semantics".into(),
            ));
        }
        if let Some((kind, m)) = self.access
            && kind != AccessKind::Pointer
            && ins.atomic
        {
            return Err((
                m.col,
                format!(
                    "`{}` is a {} flag: atomics access memory through a pointer (`av`, `vis`, `nonpriv` are implied)",
                    m.tok,
                    kind_name(kind)
                ),
            ));
        }
        if self.atom.is_some() && !ins.is_memory_access() {
            return Err((
                at(self.atom),
                format!("`atom` applies to {}", sp.atomic_ops),
            ));
        }
        Ok(())
    }
}

fn kind_name(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Pointer => "pointer",
        AccessKind::Texel => "image (texel)",
        AccessKind::ElementArm => "tensor (element)",
    }
}

fn is_barrier(k: &OpKind) -> bool {
    matches!(k, OpKind::MemoryBarrier | OpKind::ControlBarrier { .. })
}
