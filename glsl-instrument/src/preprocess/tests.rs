//! The preprocessor pass: branches, macros in effect, line numbers, includes.

use super::*;

fn pp(src: &str) -> Preprocessed {
    preprocess(src, &Includes::default(), Api::Gl).unwrap()
}

/// The non-blank lines glsl-lang sees, trimmed.
fn seen(p: &Preprocessed) -> Vec<&str> {
    p.active
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn branches_are_decided_as_the_driver_does() {
    let p = pp("#version 330\n\
        #define MODE 2\n\
        #if MODE == 1\n\
        a1\n\
        #elif MODE == 2 && defined(MODE) && !defined NOPE\n\
        a2\n\
        #else\n\
        a3\n\
        #endif\n\
        #ifdef MODE\n\
        b1\n\
        #endif\n\
        #undef MODE\n\
        #ifndef MODE\n\
        c1\n\
        #else\n\
        c2\n\
        #endif\n\
        #if 0\n\
        #if 1\n\
        d1\n\
        #else\n\
        d2\n\
        #endif\n\
        #elif (1 << 3) + 7 % 4 - -1 == 12 && (0x10 | 010) == 24\n\
        d3\n\
        #endif\n\
        #if __VERSION__ >= 330 && defined(GL_core_profile) && !defined(GL_ES)\n\
        e1\n\
        #endif\n\
        #if __LINE__ == 31 && __FILE__ == 0\n\
        g1\n\
        #endif\n\
        #if UNDEFINED_NAME\n\
        f1\n\
        #elif\n\
        f2\n\
        #endif\n");
    assert_eq!(
        seen(&p),
        [
            "#version 330",
            "#define MODE 2",
            "a2",
            "b1",
            "#undef MODE",
            "c1",
            "d3",
            "e1",
            "g1"
        ]
    );
    assert_eq!(p.active.len(), p.text.len(), "every offset kept");
    assert_eq!(p.text.lines().count(), p.active.lines().count());
}

#[test]
fn inactive_defines_do_not_count() {
    let p = pp("#version 130\n\
        #if __VERSION__ >= 130\n\
        #define FragColor fragColor\n\
        #else\n\
        #define FragColor gl_FragColor\n\
        #endif\n\
        #ifdef GL_ES\n\
        #define OUT es_out\n\
        #endif\n\
        x\n");
    assert_eq!(p.macros_at(10), "#define FragColor fragColor\n");
    let es = pp("#version 300 es\n#ifdef GL_ES\n#define P highp\n#else\n#define P\n#endif\nx\n");
    assert_eq!(es.macros_at(7), "#define P highp\n");
    let old = pp(
        "#version 120\n#if __VERSION__ >= 130\n#define C fragColor\n#else\n#define C gl_FragColor\n#endif\nx\n",
    );
    assert_eq!(old.macros_at(7), "#define C gl_FragColor\n");
}

#[test]
fn macros_are_those_in_effect_at_the_line() {
    let src = "#version 330\n\
        #define A 1\n\
        #define F(x) ((x) * \\\n   2) // twice\n\
        l5\n\
        #undef A\n\
        #define A 3\n\
        l8\n\
        #undef F\n\
        l10\n";
    let p = pp(src);
    assert_eq!(p.macros_at(5), "#define A 1\n#define F(x) ((x) *     2)\n");
    assert_eq!(p.macros_at(8), "#define F(x) ((x) *     2)\n#define A 3\n");
    assert_eq!(p.macros_at(10), "#define A 3\n");
    assert_eq!(p.macros_at(2), "");
}

#[test]
fn conditionals_in_comments_are_text() {
    let p = pp("#version 330\n/* start\n#if 0\n*/ a\n// #if 0\nb\n");
    assert_eq!(
        seen(&p),
        ["#version 330", "/* start", "#if 0", "*/ a", "// #if 0", "b"]
    );
}

/// Multi-byte characters in comments and code (piglit's utf8.frag).
#[test]
fn utf8_anywhere() {
    let p =
        pp("#version 330\n/* § ¼ */ int a; // ü\n/* ¼\n§ */\n#if 0 /* ¼ */\nx\n#endif\nint ü;\n");
    assert_eq!(
        seen(&p),
        [
            "#version 330",
            "/* § ¼ */ int a; // ü",
            "/* ¼",
            "§ */",
            "int ü;"
        ]
    );
    assert_eq!(p.active.len(), p.text.len());
}

#[test]
fn unbalanced_conditionals_are_errors() {
    let e = preprocess("#version 330\n#if 1\nx\n", &Includes::default(), Api::Gl)
        .err()
        .unwrap();
    assert!(e.message.contains("unterminated #if"), "{e:?}");
    let e = preprocess("#version 330\n#endif\n", &Includes::default(), Api::Gl)
        .err()
        .unwrap();
    assert_eq!((e.line, e.message.as_str()), (2, "#endif without #if"));
    let e = preprocess(
        "#if 1\n#else\n#elif 1\n#endif\n",
        &Includes::default(),
        Api::Gl,
    )
    .err()
    .unwrap();
    assert!(e.message.contains("after #else"), "{e:?}");
}

#[test]
fn lines_follow_line_directives_as_mesa_numbers_them() {
    // Mesa: `#version 330`: the line after `#line 10` is 10; before 3.30 it is 11.
    let p = pp("#version 330\n#line 10\nfoo;\nbar;\n#line 3 2\nbaz;\n");
    let lines: Vec<(u32, u32)> = p.lines.iter().map(|l| (l.string, l.line)).collect();
    assert_eq!(lines, [(0, 1), (0, 2), (0, 10), (0, 11), (0, 12), (2, 3)]);
    let p = pp("#version 130\n#line 10\nfoo;\n");
    assert_eq!(p.driver_line(3), 11);
    let p = pp("#version 300 es\n#line 10\nfoo;\n");
    assert_eq!(p.driver_line(3), 10);
    // Mesa numbers GLSL ES 1.00 the same way (its log says 0:10 here).
    let p = pp("#version 100\n#line 10\nfoo;\n");
    assert_eq!(p.driver_line(3), 10);
    // In an inactive branch `#line` does nothing.
    let p = pp("#version 330\n#if 0\n#line 100\n#endif\nfoo;\n");
    assert_eq!(p.driver_line(5), 5);
}

#[test]
fn includes_are_spliced_and_numbered_as_mesa_does() {
    let mut inc = Includes::default();
    inc.strings.insert(
        "/lib/a.glsl".into(),
        "// a\n#define SCALE 2.0\nfloat f() { return SCALE; }\n".into(),
    );
    inc.strings.insert(
        "/lib/b.glsl".into(),
        "#include \"/lib/a.glsl\"\nfloat g() { return f(); }\n".into(),
    );
    inc.search_paths.push("/lib".into());
    let src = "#version 330\n\
        #extension GL_ARB_shading_language_include : require\n\
        #include \"b.glsl\"\n\
        #if 0\n\
        #include \"/missing\"\n\
        #endif\n\
        foo;\n";
    let p = preprocess(src, &inc, Api::Gl).unwrap();
    let text: Vec<&str> = p.text.lines().collect();
    assert_eq!(
        text,
        [
            "#version 330",
            "#extension GL_ARB_shading_language_include : require",
            "#include \"b.glsl\"",
            "#include \"/lib/a.glsl\"",
            "// a",
            "#define SCALE 2.0",
            "float f() { return SCALE; }",
            "float g() { return f(); }",
            "#if 0",
            "#include \"/missing\"",
            "#endif",
            "foo;",
        ]
    );
    // Mesa numbers `foo;` 14 here: each included
    // string's lines follow its `#include` line, one line more after it.
    let lines: Vec<u32> = p.lines.iter().map(|l| l.line).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14]);
    assert_eq!(p.macros_at(12), "#define SCALE 2.0\n");
    assert!(seen(&p).iter().all(|l| !l.starts_with("#include")));
    let spliced: Vec<&str> = p
        .spliced
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        spliced[2..5],
        ["// a", "#define SCALE 2.0", "float f() { return SCALE; }"]
    );
    assert_eq!(
        spliced[6..],
        ["#if 0", "#include \"/missing\"", "#endif", "foo;"]
    );
    let e = preprocess("#version 330\n#include \"x.glsl\"\n", &inc, Api::Gl)
        .err()
        .unwrap();
    assert!(e.message.contains("no such named string"), "{e:?}");
    // `..`, `.`; a quoted relative path in an included string looks beside
    // it first, an angled one only in the search paths (piglit's
    // relative_path_test_double_quotes2).
    let mut rel = Includes::default();
    rel.strings
        .insert("/p/colour/c.glsl".into(), "one\n".into());
    rel.strings.insert("/p/c.glsl".into(), "two\n".into());
    rel.strings.insert(
        "/p/to/main.glsl".into(),
        "#include \"c.glsl\"\n#include <c.glsl>\n".into(),
    );
    rel.search_paths = vec!["/p/colour/".into(), "/p/".into()];
    rel.strings.insert("/p/to/c.glsl".into(), "three\n".into());
    let p = preprocess("#include \"/p/x/../to/./main.glsl\"\n", &rel, Api::Gl).unwrap();
    assert_eq!(seen(&p), ["three", "one"]);
    let mut looped = Includes::default();
    looped
        .strings
        .insert("/a".into(), "#include \"/a\"\n".into());
    let e = preprocess("#include \"/a\"\n", &looped, Api::Gl)
        .err()
        .unwrap();
    assert!(e.message.contains("nests deeper"), "{e:?}");
}
