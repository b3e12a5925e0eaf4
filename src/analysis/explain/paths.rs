//! The paths behind edges: `expand` lines of a `.explain` file evaluated on
//! one execution (which events make an edge hold), their unscoped
//! compositions (for scope mismatches), and the cycle under a self-loop.

use super::spec::{Expansion, ExplainSpec};
use crate::cat::{Env, Evaluation, Value};
use crate::relation::Relation;

/// A binding or set of the execution by name (a set as the identity on it).
fn named(eval: &Evaluation, env: &Env, name: &str) -> Option<Relation> {
    match eval.lookup(name).or_else(|| env.get(name))? {
        Value::Rel(r) => Some(r.clone()),
        Value::Set(s) => Some(Relation::identity_on(s)),
        _ => None,
    }
}

/// A step `NAME&NAME...` (`?` at the end: or stay put); `None` when some
/// name is not bound.
fn step(eval: &Evaluation, env: &Env, n: usize, text: &str) -> Option<Relation> {
    let (body, optional) = match text.strip_suffix('?') {
        Some(b) => (b, true),
        None => (text, false),
    };
    let mut out: Option<Relation> = None;
    for name in body.split('&').map(str::trim) {
        let r = named(eval, env, name)?;
        out = Some(match out {
            Some(o) => o.inter(&r),
            None => r,
        });
    }
    let r = out?;
    Some(if optional {
        r.union(&Relation::identity(n))
    } else {
        r
    })
}

/// A role's text and the identity on the sets it requires (`[A&B] text`).
fn role<'t>(eval: &Evaluation, env: &Env, n: usize, text: &'t str) -> Option<(&'t str, Relation)> {
    match text.strip_prefix('[').and_then(|t| t.split_once(']')) {
        Some((sets, rest)) => Some((rest.trim(), step(eval, env, n, sets)?)),
        None => Some((text, Relation::identity(n))),
    }
}

/// An expansion evaluated on one execution: role texts, and per step the
/// step's relation followed by the next role's filter (the first role's
/// filter is `filters0`).
struct Compiled<'x> {
    roles: Vec<&'x str>,
    first: Relation,
    steps: Vec<Relation>,
}

fn compile<'x>(eval: &Evaluation, env: &Env, n: usize, x: &'x Expansion) -> Option<Compiled<'x>> {
    let mut roles = Vec::new();
    let mut filters = Vec::new();
    for r in &x.roles {
        let (text, filter) = role(eval, env, n, r)?;
        roles.push(text);
        filters.push(filter);
    }
    let mut steps = Vec::new();
    for (k, s) in x.steps.iter().enumerate() {
        steps.push(step(eval, env, n, s)?.compose(&filters[k + 1]));
    }
    Some(Compiled {
        roles,
        first: filters.swap_remove(0),
        steps,
    })
}

impl Compiled<'_> {
    /// The events of a path `a -> ... -> b` through the steps, one per role.
    fn path(&self, a: usize, b: usize) -> Option<Vec<usize>> {
        if !self.first.contains(a, a) {
            return None;
        }
        let mut layers: Vec<Vec<usize>> = vec![vec![a]];
        for s in &self.steps {
            let last = layers.last().map(Vec::as_slice).unwrap_or(&[]);
            let mut next: Vec<usize> = last
                .iter()
                .flat_map(|&x| s.successors(x).iter().collect::<Vec<_>>())
                .collect();
            next.sort_unstable();
            next.dedup();
            layers.push(next);
        }
        if !layers.last().is_some_and(|l| l.contains(&b)) {
            return None;
        }
        let mut events = vec![b];
        let mut cur = b;
        for (k, s) in self.steps.iter().enumerate().rev() {
            let from = &layers[k];
            // stay on the same event where the path may (fewer events to read)
            cur = if from.contains(&cur) && s.contains(cur, cur) {
                cur
            } else {
                *from.iter().find(|&&x| s.contains(x, cur))?
            };
            events.push(cur);
        }
        events.reverse();
        Some(events)
    }

    /// Every pair the steps relate (the composition).
    fn composition(&self) -> Relation {
        self.steps
            .iter()
            .fold(self.first.clone(), |acc, s| acc.compose(s))
    }
}

/// How an edge `a -> b` of `binding` arises: `(roles, event)` for each
/// distinct event of the first expansion with a path, roles of one event
/// joined. Empty when the wording has no expansion for the binding or
/// none matches.
pub(super) fn expand(
    spec: &ExplainSpec,
    eval: &Evaluation,
    env: &Env,
    n: usize,
    binding: &str,
    a: usize,
    b: usize,
) -> Vec<(String, usize)> {
    for x in spec.expansions.iter().filter(|x| x.binding == binding) {
        let Some(c) = compile(eval, env, n, x) else {
            continue;
        };
        let Some(events) = c.path(a, b) else {
            continue;
        };
        let mut out: Vec<(String, usize)> = Vec::new();
        for (role, e) in c.roles.iter().zip(events) {
            match out.last_mut() {
                Some((r, last)) if *last == e => {
                    r.push_str(", ");
                    r.push_str(role);
                }
                _ => out.push((role.to_string(), e)),
            }
        }
        return out;
    }
    Vec::new()
}

/// A pair of events the `race-scope` cases' expansions relate but the cases
/// themselves do not, the scope relation does not either, in different
/// threads, that would order `x` before `y` (`x po? r`, `q po? y`): the
/// pair and the case.
pub(super) fn scope_blocked(
    spec: &ExplainSpec,
    eval: &Evaluation,
    env: &Env,
    n: usize,
    x: usize,
    y: usize,
) -> Option<(usize, usize, String)> {
    let rs = spec.race_scope.as_ref()?;
    let scope = named(eval, env, &rs.scope)?;
    let po = step(eval, env, n, "po?")?;
    let same_thread = named(eval, env, "sthd").unwrap_or_else(|| Relation::empty(n));
    let mut synchronized = Relation::empty(n);
    for case in &rs.cases {
        if let Some(r) = named(eval, env, case) {
            synchronized.union_with(&r);
        }
    }
    for case in &rs.cases {
        for e in spec.expansions.iter().filter(|e| &e.binding == case) {
            let Some(c) = compile(eval, env, n, e) else {
                continue;
            };
            let blocked = c
                .composition()
                .diff(&synchronized)
                .diff(&scope)
                .diff(&same_thread);
            for (r, q) in blocked.pairs() {
                if (po.contains(x, r) && po.contains(q, y))
                    || (po.contains(y, r) && po.contains(q, x))
                {
                    return Some((r, q, case.clone()));
                }
            }
        }
    }
    None
}

/// The cycle under a self-loop `a -> a` of a composed relation: a shortest
/// cycle through `a` in the union of the labelled relations that have no
/// self-loop themselves (the parts the composed one is made of).
pub(super) fn underlying_cycle(
    spec: &ExplainSpec,
    eval: &Evaluation,
    env: &Env,
    n: usize,
    a: usize,
) -> Option<Vec<(usize, usize)>> {
    let mut union = Relation::empty(n);
    for (binding, _) in &spec.edges {
        if let Some(r) = named(eval, env, binding)
            && r.universe() == n
            && r.is_irreflexive()
        {
            union.union_with(&r);
        }
    }
    let c = union.cycle_through(a)?;
    Some((0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect())
}
