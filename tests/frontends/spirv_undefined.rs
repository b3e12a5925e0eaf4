//! Undefined initial values (issue 17, second part, step a). SPIR-V,
//! OpVariable: "If Initializer is present, it will be the initial value of
//! the variable's memory content"; the Vulkan memory model appendix: "The
//! values stored in newly allocated memory locations are determined by a
//! SPIR-V variable's initializer, if present, or else are undefined". A
//! read of an undefined value may return any value: vkmm walks the known
//! values and fresh ones (1000, 1001, ...: `engine::undefined`).

use vkmm::{Checked, Session};

fn module(header: &str, decls: &str, body: &str) -> String {
    format!(
        "{header}
OpCapability Shader
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c7 = OpConstant %uint 7
%ptr = OpTypePointer StorageBuffer %uint
%pptr = OpTypePointer Private %uint
{decls}
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"
    )
}

fn check(text: &str) -> (Option<bool>, String) {
    let Ok(Checked::Litmus(o)) = Session::new().check_text("u.spvasm", text) else {
        panic!("the program checks")
    };
    (o.condition_holds, vkmm::report::text::litmus(&o))
}

#[test]
fn two_undefined_variables_may_differ() {
    // Neither variable has an Initializer or an @Input: their contents are
    // undefined, so they may hold different values and `forall` fails; they
    // may also be equal, so `exists` holds.
    let decls = "%v1 = OpVariable %ptr StorageBuffer\n%v2 = OpVariable %ptr StorageBuffer";
    let (holds, report) = check(&module(
        "; @Output: forall (%v1 == %v2)\n; @Config: 1, 1, 1",
        decls,
        "",
    ));
    assert_eq!(holds, Some(false), "{report}");
    // The fresh values show as 1000 and 1001 (nothing else is known).
    assert!(report.contains("%v1=1000; %v2=1001;"), "{report}");
    let (holds, _) = check(&module(
        "; @Output: exists (%v1 == %v2)\n; @Config: 1, 1, 1",
        decls,
        "",
    ));
    assert_eq!(holds, Some(true));
}

#[test]
fn an_initializer_or_an_input_defines_the_value() {
    // "If Initializer is present, it will be the initial value": both 7,
    // so `forall` holds.
    let decls = "%v1 = OpVariable %ptr StorageBuffer %c7\n%v2 = OpVariable %ptr StorageBuffer %c7";
    let (holds, report) = check(&module(
        "; @Output: forall (%v1 == %v2)\n; @Config: 1, 1, 1",
        decls,
        "",
    ));
    assert_eq!(holds, Some(true), "{report}");
    // An @Input gives the contents too.
    let decls = "%v1 = OpVariable %ptr StorageBuffer\n%v2 = OpVariable %ptr StorageBuffer";
    let text = module(
        "; @Input: %v1 = 3, %v2 = 3\n; @Output: forall (%v1 == %v2)\n; @Config: 1, 1, 1",
        decls,
        "",
    );
    let p = Session::new().load_text("u.spvasm", &text).unwrap();
    assert!(p.undefined.is_empty());
    let (holds, _) = check(&text);
    assert_eq!(holds, Some(true));
}

#[test]
fn a_branch_on_an_undefined_value_takes_both_ways() {
    // `%out` is given; `%x` is not. The store of 1 happens when `%x == 7`:
    // the known value 7 makes it happen, a fresh value does not.
    let decls = "%x = OpVariable %ptr StorageBuffer\n%out = OpVariable %ptr StorageBuffer";
    let body = "%v = OpLoad %uint %x\n%is7 = OpIEqual %bool %v %c7\nOpSelectionMerge %done None\nOpBranchConditional %is7 %st %done\n%st = OpLabel\nOpStore %out %c1\nOpBranch %done\n%done = OpLabel";
    for (cond, want) in [
        ("exists (%out == 1)", true),
        ("exists (%out == 0)", true),
        ("forall (%out == 0)", false),
        ("forall (%out == 1)", false),
    ] {
        let text = module(
            &format!("; @Input: %out = 0\n; @Output: {cond}\n; @Config: 1, 1, 1"),
            decls,
            body,
        );
        assert_eq!(check(&text).0, Some(want), "{cond}");
    }
}

#[test]
fn private_variables_are_undefined_per_invocation() {
    // Each invocation's Private variable is its own allocation: two
    // invocations copying theirs into one cell each may store different
    // values (Dat3M's `uninitialized-private-forall`: FAIL).
    let decls = "%var = OpVariable %pptr Private\n%a = OpVariable %ptr StorageBuffer\n%b = OpVariable %ptr StorageBuffer";
    let body = "%v = OpLoad %uint %var\nOpStore %a %v";
    let (holds, report) = check(&module(
        "; @Input: %a = 0, %b = 0\n; @Output: forall (%a == 1000)\n; @Config: 1, 1, 1",
        decls,
        body,
    ));
    // With a single invocation the copy may be the fresh value or a known
    // one: `forall` fails.
    assert_eq!(holds, Some(false), "{report}");
    // With an Initializer the copy is that value in every execution.
    let decls = "%var = OpVariable %pptr Private %c7\n%a = OpVariable %ptr StorageBuffer\n%b = OpVariable %ptr StorageBuffer";
    let (holds, _) = check(&module(
        "; @Input: %a = 0, %b = 0\n; @Output: forall (%a == 7)\n; @Config: 1, 1, 1",
        decls,
        body,
    ));
    assert_eq!(holds, Some(true));
}
