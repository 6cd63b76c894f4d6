//! GLSL's built-in variables (by stage and version) and built-in function
//! signatures (by the genType rules of the GLSL specification), for the
//! scope lists of the step model and the probe-expression type checker.

use crate::Stage;

/// Where a built-in variable exists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuiltinVar {
    pub name: &'static str,
    /// GLSL type as written ("vec4", "float[]", "gl_PerVertex[]").
    pub ty: &'static str,
    /// Stages that have it.
    pub stages: &'static [Stage],
    /// First desktop GLSL version (0: not in desktop GLSL).
    pub desktop: u32,
    /// First GLSL ES version (0: not in GLSL ES).
    pub es: u32,
    /// Compatibility-profile only (desktop GLSL < 1.40 or `compatibility`).
    pub compat: bool,
    /// Listed in a step's scope (stage inputs and outputs); `false` for
    /// state uniforms and constants, which the type checker still knows.
    pub listed: bool,
}

use Stage::{
    Compute as C, Fragment as F, Geometry as G, TessControl as TC, TessEval as TE, Vertex as V,
};

const ALL: &[Stage] = &[V, TC, TE, G, F, C];
const PRE_RASTER: &[Stage] = &[V, TE, G];
const TESS: &[Stage] = &[TC, TE];
const GEOM_TESS: &[Stage] = &[TC, TE, G];

const fn var(
    name: &'static str,
    ty: &'static str,
    stages: &'static [Stage],
    desktop: u32,
    es: u32,
) -> BuiltinVar {
    BuiltinVar {
        name,
        ty,
        stages,
        desktop,
        es,
        compat: false,
        listed: true,
    }
}

const fn compat(name: &'static str, ty: &'static str, stages: &'static [Stage]) -> BuiltinVar {
    BuiltinVar {
        name,
        ty,
        stages,
        desktop: 110,
        es: 0,
        compat: true,
        listed: true,
    }
}

const fn state(
    name: &'static str,
    ty: &'static str,
    desktop: u32,
    es: u32,
    compat: bool,
) -> BuiltinVar {
    BuiltinVar {
        name,
        ty,
        stages: ALL,
        desktop,
        es,
        compat,
        listed: false,
    }
}

/// The built-in variables of GLSL 4.60 (core and compatibility) and GLSL
/// ES 3.20, in the order a scope lists them.
pub(crate) const VARIABLES: &[BuiltinVar] = &[
    // Vertex inputs.
    var("gl_VertexID", "int", &[V], 130, 300),
    var("gl_InstanceID", "int", &[V], 140, 300),
    var("gl_DrawID", "int", &[V], 460, 0),
    var("gl_BaseVertex", "int", &[V], 460, 0),
    var("gl_BaseInstance", "int", &[V], 460, 0),
    compat("gl_Vertex", "vec4", &[V]),
    compat("gl_Normal", "vec3", &[V]),
    compat("gl_Color", "vec4", &[V, F]),
    compat("gl_SecondaryColor", "vec4", &[V, F]),
    compat("gl_MultiTexCoord0", "vec4", &[V]),
    compat("gl_MultiTexCoord1", "vec4", &[V]),
    compat("gl_MultiTexCoord2", "vec4", &[V]),
    compat("gl_MultiTexCoord3", "vec4", &[V]),
    compat("gl_MultiTexCoord4", "vec4", &[V]),
    compat("gl_MultiTexCoord5", "vec4", &[V]),
    compat("gl_MultiTexCoord6", "vec4", &[V]),
    compat("gl_MultiTexCoord7", "vec4", &[V]),
    compat("gl_FogCoord", "float", &[V]),
    // Tessellation and geometry inputs.
    var("gl_in", "gl_PerVertex[]", GEOM_TESS, 150, 320),
    var("gl_PatchVerticesIn", "int", TESS, 400, 320),
    var("gl_PrimitiveIDIn", "int", &[G], 150, 320),
    // Geometry: an output (the input is gl_PrimitiveIDIn).
    var("gl_PrimitiveID", "int", &[TC, TE, G, F], 150, 320),
    var("gl_InvocationID", "int", &[TC, G], 400, 320),
    var("gl_TessCoord", "vec3", &[TE], 400, 320),
    var("gl_TessLevelOuter", "float[4]", TESS, 400, 320),
    var("gl_TessLevelInner", "float[2]", TESS, 400, 320),
    var("gl_out", "gl_PerVertex[]", &[TC], 400, 320),
    // Fragment inputs.
    var("gl_FragCoord", "vec4", &[F], 110, 100),
    var("gl_FrontFacing", "bool", &[F], 110, 100),
    var("gl_PointCoord", "vec2", &[F], 120, 100),
    var("gl_SampleID", "int", &[F], 400, 320),
    var("gl_SamplePosition", "vec2", &[F], 400, 320),
    var("gl_SampleMaskIn", "int[]", &[F], 400, 320),
    var("gl_HelperInvocation", "bool", &[F], 450, 310),
    // Vertex, tess-eval and geometry outputs (an unnamed gl_PerVertex out
    // block there), fragment inputs. A tess-control shader has them only
    // as members of gl_in[] and gl_out[].
    compat("gl_TexCoord", "vec4[]", &[V, TE, G, F]),
    compat("gl_FogFragCoord", "float", &[V, TE, G, F]),
    // Compute inputs.
    var("gl_NumWorkGroups", "uvec3", &[C], 430, 310),
    var("gl_WorkGroupSize", "uvec3", &[C], 430, 310),
    var("gl_WorkGroupID", "uvec3", &[C], 430, 310),
    var("gl_LocalInvocationID", "uvec3", &[C], 430, 310),
    var("gl_GlobalInvocationID", "uvec3", &[C], 430, 310),
    var("gl_LocalInvocationIndex", "uint", &[C], 430, 310),
    // Outputs.
    var("gl_Position", "vec4", PRE_RASTER, 110, 100),
    var("gl_PointSize", "float", &[V], 110, 100),
    // GLSL ES has it in tess-eval and geometry only with the
    // *_point_size extensions.
    var("gl_PointSize", "float", &[TE, G], 150, 0),
    // Not tess-control: there only in gl_in[]/gl_out[].
    var("gl_ClipDistance", "float[]", &[V, TE, G, F], 130, 0),
    var("gl_CullDistance", "float[]", &[V, TE, G, F], 450, 0),
    compat("gl_ClipVertex", "vec4", PRE_RASTER),
    compat("gl_FrontColor", "vec4", PRE_RASTER),
    compat("gl_BackColor", "vec4", PRE_RASTER),
    compat("gl_FrontSecondaryColor", "vec4", PRE_RASTER),
    compat("gl_BackSecondaryColor", "vec4", PRE_RASTER),
    var("gl_Layer", "int", &[G], 150, 320),
    var("gl_Layer", "int", &[F], 430, 320),
    var("gl_ViewportIndex", "int", &[G], 410, 0),
    var("gl_ViewportIndex", "int", &[F], 430, 0),
    var("gl_FragDepth", "float", &[F], 110, 300),
    var("gl_SampleMask", "int[]", &[F], 400, 320),
    BuiltinVar {
        compat: true,
        ..var("gl_FragColor", "vec4", &[F], 110, 100)
    },
    BuiltinVar {
        compat: true,
        ..var("gl_FragData", "vec4[]", &[F], 110, 100)
    },
    // Uniform state and constants: known to the type checker, not listed.
    state("gl_DepthRange", "gl_DepthRangeParameters", 110, 100, false),
    state("gl_ModelViewMatrix", "mat4", 110, 0, true),
    state("gl_ProjectionMatrix", "mat4", 110, 0, true),
    state("gl_ModelViewProjectionMatrix", "mat4", 110, 0, true),
    state("gl_TextureMatrix", "mat4[]", 110, 0, true),
    state("gl_NormalMatrix", "mat3", 110, 0, true),
    state("gl_ModelViewMatrixInverse", "mat4", 110, 0, true),
    state("gl_ProjectionMatrixInverse", "mat4", 110, 0, true),
    state("gl_ModelViewProjectionMatrixInverse", "mat4", 110, 0, true),
    state("gl_TextureMatrixInverse", "mat4[]", 110, 0, true),
    state("gl_ModelViewMatrixTranspose", "mat4", 110, 0, true),
    state("gl_ProjectionMatrixTranspose", "mat4", 110, 0, true),
    state(
        "gl_ModelViewProjectionMatrixTranspose",
        "mat4",
        110,
        0,
        true,
    ),
    state("gl_TextureMatrixTranspose", "mat4[]", 110, 0, true),
    state("gl_ModelViewMatrixInverseTranspose", "mat4", 110, 0, true),
    state("gl_ProjectionMatrixInverseTranspose", "mat4", 110, 0, true),
    state(
        "gl_ModelViewProjectionMatrixInverseTranspose",
        "mat4",
        110,
        0,
        true,
    ),
    state("gl_TextureMatrixInverseTranspose", "mat4[]", 110, 0, true),
    state("gl_NormalScale", "float", 110, 0, true),
    state("gl_ClipPlane", "vec4[]", 110, 0, true),
    state("gl_Point", "gl_PointParameters", 110, 0, true),
    state("gl_FrontMaterial", "gl_MaterialParameters", 110, 0, true),
    state("gl_BackMaterial", "gl_MaterialParameters", 110, 0, true),
    state("gl_LightSource", "gl_LightSourceParameters[]", 110, 0, true),
    state("gl_LightModel", "gl_LightModelParameters", 110, 0, true),
    state(
        "gl_FrontLightModelProduct",
        "gl_LightModelProducts",
        110,
        0,
        true,
    ),
    state(
        "gl_BackLightModelProduct",
        "gl_LightModelProducts",
        110,
        0,
        true,
    ),
    state("gl_FrontLightProduct", "gl_LightProducts[]", 110, 0, true),
    state("gl_BackLightProduct", "gl_LightProducts[]", 110, 0, true),
    state("gl_TextureEnvColor", "vec4[]", 110, 0, true),
    state("gl_EyePlaneS", "vec4[]", 110, 0, true),
    state("gl_EyePlaneT", "vec4[]", 110, 0, true),
    state("gl_EyePlaneR", "vec4[]", 110, 0, true),
    state("gl_EyePlaneQ", "vec4[]", 110, 0, true),
    state("gl_ObjectPlaneS", "vec4[]", 110, 0, true),
    state("gl_ObjectPlaneT", "vec4[]", 110, 0, true),
    state("gl_ObjectPlaneR", "vec4[]", 110, 0, true),
    state("gl_ObjectPlaneQ", "vec4[]", 110, 0, true),
    state("gl_Fog", "gl_FogParameters", 110, 0, true),
];

/// Fields of the built-in structs and blocks.
pub(crate) fn builtin_struct(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    Some(match name {
        "gl_PerVertex" => &[
            ("gl_Position", "vec4"),
            ("gl_PointSize", "float"),
            ("gl_ClipDistance", "float[]"),
            ("gl_CullDistance", "float[]"),
            ("gl_ClipVertex", "vec4"),
            ("gl_FrontColor", "vec4"),
            ("gl_BackColor", "vec4"),
            ("gl_FrontSecondaryColor", "vec4"),
            ("gl_BackSecondaryColor", "vec4"),
            ("gl_TexCoord", "vec4[]"),
            ("gl_FogFragCoord", "float"),
        ],
        "gl_DepthRangeParameters" => &[("near", "float"), ("far", "float"), ("diff", "float")],
        "gl_PointParameters" => &[
            ("size", "float"),
            ("sizeMin", "float"),
            ("sizeMax", "float"),
            ("fadeThresholdSize", "float"),
            ("distanceConstantAttenuation", "float"),
            ("distanceLinearAttenuation", "float"),
            ("distanceQuadraticAttenuation", "float"),
        ],
        "gl_MaterialParameters" => &[
            ("emission", "vec4"),
            ("ambient", "vec4"),
            ("diffuse", "vec4"),
            ("specular", "vec4"),
            ("shininess", "float"),
        ],
        "gl_LightSourceParameters" => &[
            ("ambient", "vec4"),
            ("diffuse", "vec4"),
            ("specular", "vec4"),
            ("position", "vec4"),
            ("halfVector", "vec4"),
            ("spotDirection", "vec3"),
            ("spotExponent", "float"),
            ("spotCutoff", "float"),
            ("spotCosCutoff", "float"),
            ("constantAttenuation", "float"),
            ("linearAttenuation", "float"),
            ("quadraticAttenuation", "float"),
        ],
        "gl_LightModelParameters" => &[("ambient", "vec4")],
        "gl_LightModelProducts" => &[("sceneColor", "vec4")],
        "gl_LightProducts" => &[
            ("ambient", "vec4"),
            ("diffuse", "vec4"),
            ("specular", "vec4"),
        ],
        "gl_FogParameters" => &[
            ("color", "vec4"),
            ("density", "float"),
            ("start", "float"),
            ("end", "float"),
            ("scale", "float"),
        ],
        _ => return None,
    })
}

/// Whether a shader of this version has the compatibility built-ins.
fn has_compat(version: u32, es: bool, compat_profile: bool) -> bool {
    !es && (version < 140 || compat_profile)
}

/// The built-in variables a step of `stage` lists, for a shader of this
/// `#version` (`compat_profile`: `#version N compatibility`).
pub(crate) fn scope_variables(
    stage: Stage,
    version: u32,
    es: bool,
    compat_profile: bool,
) -> impl Iterator<Item = &'static BuiltinVar> {
    VARIABLES.iter().filter(move |v| {
        v.listed
            && v.stages.contains(&stage)
            && if es {
                v.es != 0 && version >= v.es && !(v.compat && version >= 300)
            } else {
                v.desktop != 0
                    && version >= v.desktop
                    && (!v.compat || has_compat(version, es, compat_profile))
            }
    })
}

/// The type of the built-in variable `name` (any stage, any version: the
/// type checker leaves stage and version rules to the driver).
pub(crate) fn variable_type(stage: Stage, name: &str) -> Option<&'static str> {
    // A name in several stages has one type everywhere, except gl_in (an
    // array of gl_PerVertex in every stage that has it).
    let _ = stage;
    VARIABLES.iter().find(|v| v.name == name).map(|v| v.ty)
}

// ---------------------------------------------------------------------------
// Functions.

/// Built-in function signatures. Notation: `genF` float..vec4, `genD`
/// double..dvec4, `genI`, `genU`, `genB`; `vecF`, `vecI`, `vecU`, `vecB`,
/// `vecD` the same with 2..4 components only; all generic types of one
/// signature have the same component count. `mat` any float matrix (the
/// same one throughout a signature), `dmat` any double matrix. Concrete
/// types are written as in GLSL. A name may have several lines.
pub(crate) const FUNCTIONS: &[&str] = &[
    // 8.1 angle and trigonometry
    "genF radians(genF)",
    "genF degrees(genF)",
    "genF sin(genF)",
    "genF cos(genF)",
    "genF tan(genF)",
    "genF asin(genF)",
    "genF acos(genF)",
    "genF atan(genF, genF)",
    "genF atan(genF)",
    "genF sinh(genF)",
    "genF cosh(genF)",
    "genF tanh(genF)",
    "genF asinh(genF)",
    "genF acosh(genF)",
    "genF atanh(genF)",
    // 8.2 exponential
    "genF pow(genF, genF)",
    "genF exp(genF)",
    "genF log(genF)",
    "genF exp2(genF)",
    "genF log2(genF)",
    "genF sqrt(genF)",
    "genD sqrt(genD)",
    "genF inversesqrt(genF)",
    "genD inversesqrt(genD)",
    // 8.3 common
    "genF abs(genF)",
    "genI abs(genI)",
    "genD abs(genD)",
    "genF sign(genF)",
    "genI sign(genI)",
    "genD sign(genD)",
    "genF floor(genF)",
    "genD floor(genD)",
    "genF trunc(genF)",
    "genD trunc(genD)",
    "genF round(genF)",
    "genD round(genD)",
    "genF roundEven(genF)",
    "genD roundEven(genD)",
    "genF ceil(genF)",
    "genD ceil(genD)",
    "genF fract(genF)",
    "genD fract(genD)",
    "genF mod(genF, float)",
    "genF mod(genF, genF)",
    "genD mod(genD, double)",
    "genD mod(genD, genD)",
    "genF modf(genF, genF)",
    "genD modf(genD, genD)",
    "genF min(genF, genF)",
    "genF min(genF, float)",
    "genD min(genD, genD)",
    "genD min(genD, double)",
    "genI min(genI, genI)",
    "genI min(genI, int)",
    "genU min(genU, genU)",
    "genU min(genU, uint)",
    "genF max(genF, genF)",
    "genF max(genF, float)",
    "genD max(genD, genD)",
    "genD max(genD, double)",
    "genI max(genI, genI)",
    "genI max(genI, int)",
    "genU max(genU, genU)",
    "genU max(genU, uint)",
    "genF clamp(genF, genF, genF)",
    "genF clamp(genF, float, float)",
    "genD clamp(genD, genD, genD)",
    "genD clamp(genD, double, double)",
    "genI clamp(genI, genI, genI)",
    "genI clamp(genI, int, int)",
    "genU clamp(genU, genU, genU)",
    "genU clamp(genU, uint, uint)",
    "genF mix(genF, genF, genF)",
    "genF mix(genF, genF, float)",
    "genD mix(genD, genD, genD)",
    "genD mix(genD, genD, double)",
    "genF mix(genF, genF, genB)",
    "genD mix(genD, genD, genB)",
    "genI mix(genI, genI, genB)",
    "genU mix(genU, genU, genB)",
    "genB mix(genB, genB, genB)",
    "genF step(genF, genF)",
    "genF step(float, genF)",
    "genD step(genD, genD)",
    "genD step(double, genD)",
    "genF smoothstep(genF, genF, genF)",
    "genF smoothstep(float, float, genF)",
    "genD smoothstep(genD, genD, genD)",
    "genD smoothstep(double, double, genD)",
    "genB isnan(genF)",
    "genB isnan(genD)",
    "genB isinf(genF)",
    "genB isinf(genD)",
    "genI floatBitsToInt(genF)",
    "genU floatBitsToUint(genF)",
    "genF intBitsToFloat(genI)",
    "genF uintBitsToFloat(genU)",
    "genF fma(genF, genF, genF)",
    "genD fma(genD, genD, genD)",
    "genF frexp(genF, genI)",
    "genD frexp(genD, genI)",
    "genF ldexp(genF, genI)",
    "genD ldexp(genD, genI)",
    // 8.4 packing
    "uint packUnorm2x16(vec2)",
    "uint packSnorm2x16(vec2)",
    "uint packUnorm4x8(vec4)",
    "uint packSnorm4x8(vec4)",
    "vec2 unpackUnorm2x16(uint)",
    "vec2 unpackSnorm2x16(uint)",
    "vec4 unpackUnorm4x8(uint)",
    "vec4 unpackSnorm4x8(uint)",
    "uint packHalf2x16(vec2)",
    "vec2 unpackHalf2x16(uint)",
    "double packDouble2x32(uvec2)",
    "uvec2 unpackDouble2x32(double)",
    // 8.5 geometric
    "float length(genF)",
    "double length(genD)",
    "float distance(genF, genF)",
    "double distance(genD, genD)",
    "float dot(genF, genF)",
    "double dot(genD, genD)",
    "vec3 cross(vec3, vec3)",
    "dvec3 cross(dvec3, dvec3)",
    "genF normalize(genF)",
    "genD normalize(genD)",
    "vec4 ftransform()",
    "genF faceforward(genF, genF, genF)",
    "genD faceforward(genD, genD, genD)",
    "genF reflect(genF, genF)",
    "genD reflect(genD, genD)",
    "genF refract(genF, genF, float)",
    "genD refract(genD, genD, double)",
    // 8.6 matrix
    "mat matrixCompMult(mat, mat)",
    "dmat matrixCompMult(dmat, dmat)",
    "mat transpose(mat)",
    "dmat transpose(dmat)",
    "float determinant(mat)",
    "double determinant(dmat)",
    "mat inverse(mat)",
    "dmat inverse(dmat)",
    // 8.7 vector relational
    "vecB lessThan(vecF, vecF)",
    "vecB lessThan(vecD, vecD)",
    "vecB lessThan(vecI, vecI)",
    "vecB lessThan(vecU, vecU)",
    "vecB lessThanEqual(vecF, vecF)",
    "vecB lessThanEqual(vecD, vecD)",
    "vecB lessThanEqual(vecI, vecI)",
    "vecB lessThanEqual(vecU, vecU)",
    "vecB greaterThan(vecF, vecF)",
    "vecB greaterThan(vecD, vecD)",
    "vecB greaterThan(vecI, vecI)",
    "vecB greaterThan(vecU, vecU)",
    "vecB greaterThanEqual(vecF, vecF)",
    "vecB greaterThanEqual(vecD, vecD)",
    "vecB greaterThanEqual(vecI, vecI)",
    "vecB greaterThanEqual(vecU, vecU)",
    "vecB equal(vecF, vecF)",
    "vecB equal(vecD, vecD)",
    "vecB equal(vecI, vecI)",
    "vecB equal(vecU, vecU)",
    "vecB equal(vecB, vecB)",
    "vecB notEqual(vecF, vecF)",
    "vecB notEqual(vecD, vecD)",
    "vecB notEqual(vecI, vecI)",
    "vecB notEqual(vecU, vecU)",
    "vecB notEqual(vecB, vecB)",
    "bool any(vecB)",
    "bool all(vecB)",
    "vecB not(vecB)",
    // 8.8 integer
    "genU uaddCarry(genU, genU, genU)",
    "genU usubBorrow(genU, genU, genU)",
    "void umulExtended(genU, genU, genU, genU)",
    "void imulExtended(genI, genI, genI, genI)",
    "genI bitfieldExtract(genI, int, int)",
    "genU bitfieldExtract(genU, int, int)",
    "genI bitfieldInsert(genI, genI, int, int)",
    "genU bitfieldInsert(genU, genU, int, int)",
    "genI bitfieldReverse(genI)",
    "genU bitfieldReverse(genU)",
    "genI bitCount(genI)",
    "genI bitCount(genU)",
    "genI findLSB(genI)",
    "genI findLSB(genU)",
    "genI findMSB(genI)",
    "genI findMSB(genU)",
    // 8.13 fragment processing
    "genF dFdx(genF)",
    "genF dFdy(genF)",
    "genF dFdxFine(genF)",
    "genF dFdyFine(genF)",
    "genF dFdxCoarse(genF)",
    "genF dFdyCoarse(genF)",
    "genF fwidth(genF)",
    "genF fwidthFine(genF)",
    "genF fwidthCoarse(genF)",
    "genF interpolateAtCentroid(genF)",
    "genF interpolateAtSample(genF, int)",
    "genF interpolateAtOffset(genF, vec2)",
    // 8.14 noise
    "float noise1(genF)",
    "vec2 noise2(genF)",
    "vec3 noise3(genF)",
    "vec4 noise4(genF)",
    // 8.15-8.19
    "void EmitVertex()",
    "void EndPrimitive()",
    "void EmitStreamVertex(int)",
    "void EndStreamPrimitive(int)",
    "void barrier()",
    "void memoryBarrier()",
    "void memoryBarrierAtomicCounter()",
    "void memoryBarrierBuffer()",
    "void memoryBarrierShared()",
    "void memoryBarrierImage()",
    "void groupMemoryBarrier()",
    "uint atomicCounterIncrement(atomic_uint)",
    "uint atomicCounterDecrement(atomic_uint)",
    "uint atomicCounter(atomic_uint)",
];

/// Built-in functions whose signatures depend on an opaque type (textures,
/// images, atomics on memory): their result type is computed from the
/// arguments and their arguments are left to the driver.
pub(crate) fn is_opaque_function(name: &str) -> bool {
    name.starts_with("texture")
        || name.starts_with("shadow")
        || name.starts_with("texel")
        || name.starts_with("image")
        || name.starts_with("atomic")
        || name.starts_with("subpass")
        || name.starts_with("anyInvocation")
        || name.starts_with("allInvocation")
        || name.starts_with("ballot")
        || name.starts_with("readInvocation")
        || name.starts_with("readFirstInvocation")
}

/// The signatures of built-in function `name` (see [`FUNCTIONS`]).
pub(crate) fn function_signatures(name: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    FUNCTIONS
        .iter()
        .filter_map(|line| {
            let (ret, rest) = line.split_once(' ')?;
            let (n, args) = rest.split_once('(')?;
            (n == name).then(|| {
                let args = args.trim_end_matches(')');
                let list = if args.is_empty() {
                    Vec::new()
                } else {
                    args.split(", ").collect()
                };
                (ret, list)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(stage: Stage, version: u32, es: bool) -> Vec<&'static str> {
        scope_variables(stage, version, es, false)
            .map(|v| v.name)
            .collect()
    }

    #[test]
    fn scope_by_stage_and_version() {
        let f = names(F, 110, false);
        assert!(f.contains(&"gl_FragCoord") && f.contains(&"gl_FragColor"));
        assert!(!f.contains(&"gl_PrimitiveID") && !f.contains(&"gl_Position"));
        let f = names(F, 330, false);
        assert!(f.contains(&"gl_PrimitiveID") && !f.contains(&"gl_FragColor"));
        let f = names(F, 300, true);
        assert!(!f.contains(&"gl_FragColor") && f.contains(&"gl_FragDepth"));
        let v = names(V, 100, true);
        assert_eq!(v, ["gl_Position", "gl_PointSize"]);
        let v = names(V, 330, false);
        assert!(
            v.contains(&"gl_VertexID") && v.contains(&"gl_InstanceID") && !v.contains(&"gl_Vertex")
        );
        let g = names(G, 150, false);
        assert!(
            g.contains(&"gl_PrimitiveIDIn")
                && g.contains(&"gl_in")
                && !g.contains(&"gl_InvocationID")
        );
        assert!(names(G, 400, false).contains(&"gl_InvocationID"));
        assert!(names(TE, 400, false).contains(&"gl_TessCoord"));
        assert!(names(TC, 400, false).contains(&"gl_out"));
        let c = names(C, 430, false);
        for n in [
            "gl_GlobalInvocationID",
            "gl_LocalInvocationID",
            "gl_WorkGroupID",
            "gl_LocalInvocationIndex",
        ] {
            assert!(c.contains(&n), "{n}");
        }
        assert!(scope_variables(V, 150, false, true).any(|v| v.name == "gl_Vertex"));
    }

    #[test]
    fn legacy_varyings_by_stage() {
        let compat = |stage| -> Vec<&str> {
            scope_variables(stage, 400, false, true)
                .map(|v| v.name)
                .collect()
        };
        // Tess-control: per-vertex values only through gl_in[]/gl_out[].
        let tc = compat(TC);
        for n in [
            "gl_FogFragCoord",
            "gl_TexCoord",
            "gl_ClipDistance",
            "gl_FrontColor",
            "gl_ClipVertex",
            "gl_Position",
            "gl_PointSize",
        ] {
            assert!(!tc.contains(&n), "{n}");
        }
        // Tess-eval and geometry: plain outputs; fragment: inputs.
        for stage in [TE, G, V] {
            let s = compat(stage);
            for n in [
                "gl_FogFragCoord",
                "gl_TexCoord",
                "gl_ClipDistance",
                "gl_FrontColor",
            ] {
                assert!(s.contains(&n), "{stage:?} {n}");
            }
        }
        assert!(compat(F).contains(&"gl_FogFragCoord") && !compat(F).contains(&"gl_FrontColor"));
        // Core profile: none of them.
        assert!(!names(G, 400, false).contains(&"gl_FogFragCoord"));
        // Geometry writes gl_PrimitiveID (and reads gl_PrimitiveIDIn).
        assert!(names(G, 150, false).contains(&"gl_PrimitiveID"));
        // GLSL ES: gl_PointSize only in the vertex stage without extensions.
        assert!(!names(G, 320, true).contains(&"gl_PointSize"));
        assert!(names(V, 300, true).contains(&"gl_PointSize"));
        // Every listed name has one type.
        for v in VARIABLES {
            assert_eq!(variable_type(v.stages[0], v.name), Some(v.ty), "{}", v.name);
        }
    }

    #[test]
    fn signatures_parse() {
        for line in FUNCTIONS {
            let (_, rest) = line.split_once(' ').unwrap();
            let name = rest.split('(').next().unwrap();
            assert!(!function_signatures(name).is_empty(), "{line}");
        }
        assert_eq!(function_signatures("mix").len(), 9);
        assert_eq!(function_signatures("ftransform"), vec![("vec4", vec![])]);
    }
}
