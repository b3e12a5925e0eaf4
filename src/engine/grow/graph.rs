//! The execution graph the search grows: each thread's events in program
//! order, each read with the write it reads from, and what the revisit
//! rule needs of each event (when it was added, whether it may still be
//! revisited or removed, whether it was added maximally).

/// An event: its thread and its index among the thread's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Id {
    pub thread: u32,
    pub index: u32,
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Access {
    /// A read of `loc` from write `rf` (`None`: the initial value);
    /// `pinned`: the value the test says it reads.
    Read {
        loc: usize,
        rf: Option<Id>,
        pinned: Option<i64>,
    },
    /// A write of `value` to `loc` (`None`: a value the test does not
    /// give); `rmw`: the write part of the read-modify-write whose read
    /// part is the event before it.
    Write {
        loc: usize,
        value: Option<i64>,
        rmw: bool,
    },
    /// An event that accesses no memory.
    Other,
}

/// One event of the graph.
#[derive(Clone, Debug)]
pub(super) struct Node {
    /// The statement of the thread's code that made it.
    pub stmt: usize,
    pub access: Access,
    /// When it was added: events are numbered in the order the search
    /// added them (and so increase along each thread), a revisit keeping
    /// the numbers of the events it keeps.
    pub stamp: u32,
    /// False once the event is in the prefix of a write that revisited a
    /// read: a later revisit may neither change what it reads nor remove it.
    pub revisitable: bool,
    /// A read added reading the latest write of its location (the initial
    /// value when it had none), or revisited; a write (always added last in
    /// the order of its location's writes).
    pub added_max: bool,
}

impl Node {
    pub fn is_write_of(&self, l: usize) -> bool {
        matches!(self.access, Access::Write { loc, .. } if loc == l)
    }
}

/// A graph: per thread, its events in program order.
#[derive(Clone, Debug)]
pub(super) struct Graph {
    pub threads: Vec<Vec<Node>>,
    next_stamp: u32,
}

/// Per thread, how many of its first events a set of events holds (the
/// sets the search works with are closed under program order).
pub(super) type View = Vec<usize>;

impl Graph {
    pub fn new(threads: usize) -> Graph {
        Graph {
            threads: vec![Vec::new(); threads],
            next_stamp: 0,
        }
    }

    pub fn node(&self, id: Id) -> &Node {
        &self.threads[id.thread as usize][id.index as usize]
    }

    fn node_mut(&mut self, id: Id) -> &mut Node {
        &mut self.threads[id.thread as usize][id.index as usize]
    }

    /// Every event, thread by thread.
    pub fn ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.threads.iter().enumerate().flat_map(|(t, nodes)| {
            (0..nodes.len()).map(move |i| Id {
                thread: t as u32,
                index: i as u32,
            })
        })
    }

    /// Adds `access` as thread `t`'s next event.
    pub fn push(&mut self, t: usize, stmt: usize, access: Access, added_max: bool) -> Id {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.threads[t].push(Node {
            stmt,
            access,
            stamp,
            revisitable: true,
            added_max,
        });
        Id {
            thread: t as u32,
            index: (self.threads[t].len() - 1) as u32,
        }
    }

    /// The writes of location `l`.
    pub fn writes_of(&self, l: usize) -> Vec<Id> {
        self.ids()
            .filter(|&w| self.node(w).is_write_of(l))
            .collect()
    }

    /// The write of `l` added last, if any.
    pub fn latest_write(&self, l: usize) -> Option<Id> {
        self.writes_of(l)
            .into_iter()
            .max_by_key(|&w| self.node(w).stamp)
    }

    /// The value event `r` reads: its write's, or the initial value.
    pub fn value_read(&self, r: Id, initial: &dyn Fn(usize) -> i64) -> Option<i64> {
        match self.node(r).access {
            Access::Read { rf: Some(w), .. } => match self.node(w).access {
                Access::Write { value, .. } => value,
                _ => None,
            },
            Access::Read { loc, rf: None, .. } => Some(initial(loc)),
            _ => None,
        }
    }

    /// Whether thread `t` waits forever: its last event is a read of
    /// another value than the test pins (only a revisit can change it).
    pub fn blocked(&self, t: usize, initial: &dyn Fn(usize) -> i64) -> bool {
        let Some(last) = self.threads[t].len().checked_sub(1) else {
            return false;
        };
        let id = Id {
            thread: t as u32,
            index: last as u32,
        };
        match self.node(id).access {
            Access::Read {
                pinned: Some(p), ..
            } => self.value_read(id, initial) != Some(p),
            _ => false,
        }
    }

    /// The prefix of `a` under program order and reads-from (`a` included),
    /// as a view.
    pub fn porf_view(&self, a: Id) -> View {
        let mut view = vec![0usize; self.threads.len()];
        let mut todo = vec![a];
        while let Some(e) = todo.pop() {
            let t = e.thread as usize;
            let upto = e.index as usize + 1;
            if view[t] >= upto {
                continue;
            }
            for i in view[t]..upto {
                if let Access::Read { rf: Some(w), .. } = self.threads[t][i].access {
                    todo.push(w);
                }
            }
            view[t] = upto;
        }
        view
    }

    /// Whether `view` holds `e`.
    pub fn holds(view: &View, e: Id) -> bool {
        (e.index as usize) < view[e.thread as usize]
    }

    /// The graph of the events of `view` only.
    pub fn restrict(&self, view: &View) -> Graph {
        Graph {
            threads: self
                .threads
                .iter()
                .zip(view)
                .map(|(nodes, &n)| nodes[..n].to_vec())
                .collect(),
            next_stamp: self.next_stamp,
        }
    }

    /// The view of the events added no later than `e`, or in `prefix`.
    fn kept(&self, e: Id, prefix: &View) -> View {
        let stamp = self.node(e).stamp;
        self.threads
            .iter()
            .zip(prefix)
            .map(|(nodes, &p)| {
                // Stamps increase along a thread.
                let before = nodes.partition_point(|n| n.stamp <= stamp);
                before.max(p)
            })
            .collect()
    }

    /// Whether some write of `l` in `view` other than `a` was added after
    /// `stamp` (`None`: after the initial value, so any).
    fn later_write_kept(&self, l: usize, stamp: Option<u32>, view: &View, a: Id) -> bool {
        self.ids().any(|s| {
            s != a
                && Graph::holds(view, s)
                && self.node(s).is_write_of(l)
                && stamp.is_none_or(|st| self.node(s).stamp > st)
        })
    }

    /// The revisit of read `r` by write `a` (the event added last), when
    /// the maximality condition allows it: the graph of the events added
    /// no later than `r` and of `a`'s prefix, with `r` reading from `a`,
    /// `a`'s prefix marked as never revisited again. `None` when the
    /// condition refuses it (another exploration order produces the graph).
    ///
    /// The condition is TruSt's (Kokologiannakis, Marmanis, Gladstein and
    /// Vafeiadis, POPL'22) for graphs without a coherence order, the order
    /// in which writes were added standing for it where reads choose:
    /// every removed event, and `r`, must be revisitable and added
    /// maximally, and no removed read (nor `r`) may read a write that a
    /// kept write of its location other than `a` was added after (the
    /// initial value: any kept write). TruSt's condition on removed
    /// writes (no kept write after them in `co`) is left out: these graphs
    /// fix no `co`, so a write's place is no choice that two explorations
    /// could make differently.
    pub fn revisit(&self, r: Id, a: Id) -> Option<Graph> {
        let prefix = self.porf_view(a);
        if Graph::holds(&prefix, r) {
            return None;
        }
        let keep = self.kept(r, &prefix);
        let removed = self.ids().filter(|&e| !Graph::holds(&keep, e));
        for e in removed.chain(std::iter::once(r)) {
            let node = self.node(e);
            if !node.revisitable || !node.added_max {
                return None;
            }
            let followed = match node.access {
                Access::Read { loc, rf, .. } => {
                    let stamp = rf.map(|w| self.node(w).stamp);
                    self.later_write_kept(loc, stamp, &keep, a)
                }
                // A write's place among its location's writes is no
                // choice of the graph (the skeleton lists the orders), so
                // it constrains nothing.
                Access::Write { .. } | Access::Other => false,
            };
            if followed {
                return None;
            }
        }
        let mut g = self.restrict(&keep);
        // Every kept read reads a kept write: a read reading a write added
        // after it was revisited by that write, whose prefix is not
        // revisitable, so the condition above keeps that write.
        debug_assert!(g.ids().all(|e| match g.node(e).access {
            Access::Read { rf: Some(w), .. } => Graph::holds(&keep, w),
            _ => true,
        }));
        if let Access::Read { rf, .. } = &mut g.node_mut(r).access {
            *rf = Some(a);
        }
        g.node_mut(r).added_max = true;
        for e in g.ids().collect::<Vec<_>>() {
            if Graph::holds(&prefix, e) {
                g.node_mut(e).revisitable = false;
            }
        }
        Some(g)
    }

    /// The reads of `l` (the candidates for a revisit by a new write).
    pub fn reads_of(&self, l: usize) -> Vec<Id> {
        self.ids()
            .filter(|&e| matches!(self.node(e).access, Access::Read { loc, .. } if loc == l))
            .collect()
    }

    /// A key telling complete graphs apart: per thread, per event, its
    /// statement and, for a read, the event it reads from.
    pub fn key(&self) -> Vec<u32> {
        let mut key = Vec::new();
        for nodes in &self.threads {
            key.push(u32::MAX);
            for n in nodes {
                key.push(n.stmt as u32);
                if let Access::Read { rf, .. } = n.access {
                    match rf {
                        Some(w) => key.extend([w.thread, w.index]),
                        None => key.push(u32::MAX - 1),
                    }
                }
            }
        }
        key
    }
}
