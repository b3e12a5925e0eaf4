//! The names a test's source gives its threads, registers and locations,
//! kept with the [`Program`](super::Program) so that text written against
//! the test later (an `--outcome` condition) resolves without re-reading the
//! file.

/// The symbol table of a test.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Symbols {
    /// One per thread, in the order of `Program::threads`.
    pub threads: Vec<ThreadSymbols>,
    /// Every name a condition may give memory, in declaration order: a
    /// reference (an alias such as `y` in `y aliases x` included), an OpenCL
    /// per-workgroup instance of a `local` variable (`y@wg0`, `y@dev1.wg0`),
    /// or the bare name of such a variable, which stands for all its
    /// instances.
    pub names: Vec<LocationName>,
    /// Name -> index into `names` (a test may declare tens of thousands of
    /// locations: looking names up one by one made loading quadratic).
    #[serde(skip)]
    index: std::collections::BTreeMap<String, usize>,
    /// What a location's bits mean to a reader, where the front end knows
    /// (a shader's cells: `uint`, `float`, ...): reports show the value as
    /// that type, and a condition compares it with a float literal at its
    /// width ([`super::ValueKind`]). A location without one is a signed
    /// integer.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kinds: std::collections::BTreeMap<usize, super::ValueKind>,
}

/// A thread's source name and registers.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ThreadSymbols {
    /// How the source names the thread: `P0`, `P1`, ... in litmus tests (a
    /// condition may also write the bare number), the `NEWTHREAD` number in
    /// `.test` files.
    pub name: String,
    /// The registers a condition may name (`P0:r0`): those the test
    /// declares, initialises or writes, sorted.
    pub registers: Vec<String>,
    /// What else names the thread in reports, after `P0`: a SPIR-V
    /// invocation's workgroup and local invocation ids (`wg 1,0,0 lid
    /// 0,0,0`). None for the litmus formats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The thread's subgroup, workgroup and queue family as the source
    /// numbers them (`P1@sg 0, wg 1, qf 0`), for pictures; `None` where the
    /// source does not number them (pictures then number scope instances in
    /// order of appearance from 0).
    #[serde(skip)]
    pub scope_numbers: Option<[usize; 3]>,
}

/// A name of memory and the locations it denotes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LocationName {
    pub name: String,
    /// Indices into `Program::locations`: one, or one per workgroup for the
    /// bare name of an OpenCL `local` variable.
    pub locations: Vec<usize>,
    /// For a variable declared with a size (`x:8`): the bytes each of
    /// `locations` holds, its chunks in increasing address order
    /// (src/ir/bytes.rs); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bytes: Vec<super::ByteRange>,
}

impl Symbols {
    /// The locations `name` denotes, if it is a name of the test.
    pub fn lookup(&self, name: &str) -> Option<&[usize]> {
        self.index
            .get(name)
            .map(|&i| self.names[i].locations.as_slice())
    }

    /// Whether thread `thread` has a register named `reg`.
    pub fn has_register(&self, thread: usize, reg: &str) -> bool {
        self.threads.get(thread).is_some_and(|t| {
            t.registers
                .binary_search_by(|r| r.as_str().cmp(reg))
                .is_ok()
        })
    }

    /// Adds a name (ignored if the table has it already).
    pub fn add_name(&mut self, name: &str, locations: Vec<usize>) {
        if self.lookup(name).is_none() {
            self.index.insert(name.to_string(), self.names.len());
            self.names.push(LocationName {
                name: name.to_string(),
                locations,
                bytes: Vec::new(),
            });
        }
    }

    /// Adds the name of a sized variable whose chunks `chunks` (bytes,
    /// location) cover it in increasing address order.
    pub fn add_sized(&mut self, name: &str, chunks: &[(super::ByteRange, usize)]) {
        if self.lookup(name).is_none() {
            self.index.insert(name.to_string(), self.names.len());
            self.names.push(LocationName {
                name: name.to_string(),
                locations: chunks.iter().map(|c| c.1).collect(),
                bytes: chunks.iter().map(|c| c.0).collect(),
            });
        }
    }

    /// The entry of `name`.
    pub fn entry(&self, name: &str) -> Option<&LocationName> {
        self.index.get(name).map(|&i| &self.names[i])
    }

    /// The sized variable split into several chunks that location `loc` is
    /// a chunk of (its first name), if any.
    pub fn split_variable_of(&self, loc: usize) -> Option<&LocationName> {
        self.names
            .iter()
            .find(|n| n.bytes.len() > 1 && n.locations.contains(&loc))
    }

    /// Adds the next thread, with its source name and registers.
    pub fn add_thread<'a>(
        &mut self,
        name: String,
        registers: impl IntoIterator<Item = &'a String>,
    ) {
        let mut registers: Vec<String> = registers.into_iter().cloned().collect();
        registers.sort();
        registers.dedup();
        self.threads.push(ThreadSymbols {
            name,
            registers,
            label: None,
            scope_numbers: None,
        });
    }
}
