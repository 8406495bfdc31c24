// Package jsonscan reads JSON text of a known shape in one strict pass.
//
// A Reader walks the text value by value: the caller says what it expects
// next (Object, Array, String, Int, Bool, ...), and the Reader checks the
// syntax of exactly the bytes it consumes. Nothing is validated twice, which
// is the point: decoding nested members with encoding/json re-validates the
// same bytes at every nesting level.
//
// It is stricter than encoding/json:
//   - the text must be valid UTF-8; encoding/json silently replaces invalid
//     bytes inside strings with U+FFFD, which would let what Herald stores
//     differ from what the client sent;
//   - Int accepts only integer literals (no fraction, no exponent) that fit
//     in an int64, because AWS SDKs send integers as integers;
//   - nesting is limited (DefaultMaxDepth) so hostile input cannot exhaust
//     the stack.
//
// Escapes are decoded as encoding/json decodes them, including its one
// leniency: a \u escape naming a lone UTF-16 surrogate becomes U+FFFD.
//
// Duplicate member names are left to the caller, who knows the shape; Seen
// is a one-word bitset that makes the check cheap.
//
// Errors are *SyntaxError values carrying the byte offset; a Reader never
// panics, and after its first error every method returns that error.
package jsonscan
