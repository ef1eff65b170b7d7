// Lab 05 (solution): divergence. On a GPU, work-items run in lock-step groups (a warp of 32 on
// NVIDIA): when the items of one group take different branches, the group runs each branch taken,
// one after another, with the items not on it idle. The lab times each divergent kernel below
// against a "uniform" twin that does exactly the same work, with the branches chosen per block of
// simd consecutive work-items, so that a whole warp always agrees.
//
// Your task: the three *Uniform kernels choose the wrong branch (branch = 0 for everyone), so the
// lab says WRONG. Fill in the three TODOs (one line each) and run ./build/bin/lab05_divergence
// (no rebuild needed).

// Every kernel: in[i] and out[i] belong to work-item i = get_global_id(0); iters is the number of
// turns an ordinary branch does; k is the number of branches of the switch (1..32); simd is the
// width of the machine's lock-step groups (32 on NVIDIA). The host computes the same turns and
// checks every out[i].

// A turn rotates both points of p = (x0, y0, x1, y1) by one fixed angle. Each step needs the
// previous one, so the compiler can neither skip nor merge the steps, and steps is a run-time value.
#define TURN(c, s, steps) \
    for (int t = 0; t < (steps); ++t) \
        p = (float4)((c) * p.x - (s) * p.y, (s) * p.x + (c) * p.y, \
                     (c) * p.z - (s) * p.w, (s) * p.z + (c) * p.w)

// Operation j turns by its own angle 0.3 + 0.09 j radians (cosine, sine). All cost the same; each
// is written out with its own constants, so each case below is separate code. The host holds the
// same table (labs/05_divergence/main.cpp): change one, change both.
#define OP0(n)  TURN(  0.955336511f,  0.295520216f, n)
#define OP1(n)  TURN(  0.924909055f,  0.380188406f, n)
#define OP2(n)  TURN(  0.886994898f,  0.461779177f, n)
#define OP3(n)  TURN(  0.841901004f,  0.539632022f, n)
#define OP4(n)  TURN(  0.789992213f,   0.61311686f, n)
#define OP5(n)  TURN(  0.731688857f,  0.681638777f, n)
#define OP6(n)  TURN(  0.667462826f,  0.744643092f, n)
#define OP7(n)  TURN(  0.597833991f,  0.801619947f, n)
#define OP8(n)  TURN(  0.523365974f,  0.852108002f, n)
#define OP9(n)  TURN(  0.444661528f,  0.895698667f, n)
#define OP10(n) TURN(  0.362357765f,  0.932039082f, n)
#define OP11(n) TURN(  0.277120888f,   0.96083504f, n)
#define OP12(n) TURN(  0.189640835f,  0.981853545f, n)
#define OP13(n) TURN(  0.100625731f,  0.994924366f, n)
#define OP14(n) TURN( 0.0107961167f,  0.999941707f, n)
#define OP15(n) TURN(-0.0791208893f,  0.996865034f, n)
#define OP16(n) TURN( -0.168397442f,  0.985719204f, n)
#define OP17(n) TURN(  -0.25631091f,  0.966594398f, n)
#define OP18(n) TURN( -0.342149645f,  0.939645469f, n)
#define OP19(n) TURN(  -0.42521885f,   0.90509057f, n)
#define OP20(n) TURN( -0.504846096f,  0.863209367f, n)
#define OP21(n) TURN( -0.580386877f,  0.814340889f, n)
#define OP22(n) TURN(  -0.65122968f,  0.758880734f, n)
#define OP23(n) TURN( -0.716801047f,  0.697277725f, n)
#define OP24(n) TURN( -0.776570261f,  0.630030632f, n)
#define OP25(n) TURN( -0.830053508f,  0.557683706f, n)
#define OP26(n) TURN( -0.876817882f,  0.480822623f, n)
#define OP27(n) TURN( -0.916484833f,  0.400069475f, n)
#define OP28(n) TURN( -0.948733211f,  0.316077977f, n)
#define OP29(n) TURN( -0.973302066f,   0.22952795f, n)
#define OP30(n) TURN( -0.989992499f,  0.141120002f, n)
#define OP31(n) TURN( -0.998669386f, 0.0515697673f, n)

// Operation b (0..31), n steps: a 32-way switch.
#define RUN_OP(b, n) \
    switch (b) { \
    case 0:  OP0(n); break; \
    case 1:  OP1(n); break; \
    case 2:  OP2(n); break; \
    case 3:  OP3(n); break; \
    case 4:  OP4(n); break; \
    case 5:  OP5(n); break; \
    case 6:  OP6(n); break; \
    case 7:  OP7(n); break; \
    case 8:  OP8(n); break; \
    case 9:  OP9(n); break; \
    case 10: OP10(n); break; \
    case 11: OP11(n); break; \
    case 12: OP12(n); break; \
    case 13: OP13(n); break; \
    case 14: OP14(n); break; \
    case 15: OP15(n); break; \
    case 16: OP16(n); break; \
    case 17: OP17(n); break; \
    case 18: OP18(n); break; \
    case 19: OP19(n); break; \
    case 20: OP20(n); break; \
    case 21: OP21(n); break; \
    case 22: OP22(n); break; \
    case 23: OP23(n); break; \
    case 24: OP24(n); break; \
    case 25: OP25(n); break; \
    case 26: OP26(n); break; \
    case 27: OP27(n); break; \
    case 28: OP28(n); break; \
    case 29: OP29(n); break; \
    case 30: OP30(n); break; \
    case 31: OP31(n); break; \
    }

// The lecture's example: odd and even work-items do different operations of equal cost.
__kernel void evenOdd(__global const float4 *in, __global float4 *out, const int iters,
                      const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    if (id % 2)
        OP1(iters);  // id odd
    else
        OP0(iters);  // id even
    out[id] = p;
}

// The same two operations, now chosen per block of simd consecutive work-items: item id does
// operation 1 when its block number id / simd is odd, operation 0 when it is even.
__kernel void evenOddUniform(__global const float4 *in, __global float4 *out, const int iters,
                             const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    // ---- starter ----
    //| const int branch = 0;  // TODO (1 line): the block's parity, the same for all simd items of a block
    // ---- your code ----
    const int branch = (id / simd) % 2;
    // ---- end of your code ----
    if (branch)
        OP1(iters);
    else
        OP0(iters);
    out[id] = p;
}

// k operations of equal cost, neighbours taking different ones: operation id % k.
__kernel void kWay(__global const float4 *in, __global float4 *out, const int iters,
                   const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    RUN_OP(id % k, iters);
    out[id] = p;
}

// The same k operations, one per block of simd work-items: operation (id / simd) % k.
__kernel void kWayUniform(__global const float4 *in, __global float4 *out, const int iters,
                          const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    // ---- starter ----
    //| const int branch = 0;  // TODO (1 line): the operation for this item's block, in 0..k-1
    // ---- your code ----
    const int branch = (id / simd) % k;
    // ---- end of your code ----
    RUN_OP(branch, iters);
    out[id] = p;
}

// One work-item in simd (id % simd == 0) does the expensive work, simd * iters turns of operation
// 0; the others do one turn of operation 1. On average each item still does about iters turns.
__kernel void oneExpensive(__global const float4 *in, __global float4 *out, const int iters,
                           const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    if (id % simd == 0)
        OP0(simd * iters);
    else
        OP1(1);
    out[id] = p;
}

// As many expensive items, gathered into whole blocks: every item of one block in simd
// (block number id / simd a multiple of simd) is expensive, the rest cheap.
__kernel void oneExpensiveUniform(__global const float4 *in, __global float4 *out,
                                  const int iters, const int k, const int simd)
{
    const int id = get_global_id(0);
    float4 p = in[id];
    // ---- starter ----
    //| const int branch = 0;  // TODO (1 line): 1 for every item of every simd-th block, else 0
    // ---- your code ----
    const int branch = (id / simd) % simd == 0;
    // ---- end of your code ----
    if (branch)
        OP0(simd * iters);
    else
        OP1(1);
    out[id] = p;
}
