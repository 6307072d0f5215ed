package bigjson

import (
	"math"
	"strconv"
)

// maxToken bounds the id and error code a [Scanner] keeps. A longer id is
// treated as no id: JSON-RPC ids that identify a request are short.
const maxToken = 64

// maxKinds is how many levels of nesting the [Scanner] checks brackets for
// (one bit a level). Deeper levels are counted only: a mismatched bracket
// there goes unnoticed, which costs nothing that matters (the members it
// reports are on the first two levels).
const maxKinds = 64 * 64

// Type is the JSON type of a value, as its first byte tells it.
type Type uint8

// The JSON types. NoValue stands for a value not seen (yet).
const (
	NoValue Type = iota
	Object
	Array
	String
	Number
	Boolean
	Null
)

var typeNames = [...]string{"", "object", "array", "string", "number", "boolean", "null"}

// String returns the name of t as [jsontype.Of] spells it: "object",
// "array", ..., and "" for NoValue.
//
// [jsontype.Of]: github.com/mcp-fuzz/mcp-fuzz/internal/jsontype
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "invalid"
}

// valueType returns the type of the value that begins with byte c, or
// NoValue when no value begins with c.
func valueType(c byte) Type {
	switch {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == '-' || isDigit(c):
		return Number
	case c == 't' || c == 'f':
		return Boolean
	case c == 'n':
		return Null
	}
	return NoValue
}

// Summary is what a [Scanner] found in a message.
type Summary struct {
	Bytes    int64 // bytes fed
	Complete bool  // one whole, valid JSON value was fed, and nothing else but spaces
	// Invalid is set once the bytes fed cannot begin a JSON value; every
	// field below is then zero.
	Invalid bool

	Type Type // the type of the message: Object for every JSON-RPC message

	// HasVersion is set when a top-level "jsonrpc" member was seen. Version
	// is its value as written when that is a string of at most 64 bytes
	// (with its quotes and escapes), else "".
	HasVersion bool
	Version    string

	// ID is the top-level "id" as written (a JSON string with its quotes, or
	// a number), "" when there is none, it is another type, or it is longer
	// than 64 bytes.
	ID        string
	HasResult bool // a top-level "result" member was seen
	// ResultType is the type of the top-level "result" (the last one when
	// it is repeated), NoValue when there is none.
	ResultType Type
	HasError   bool // a top-level "error" member was seen
	HasMethod  bool // a top-level "method" member was seen: a request or notification
	// Code is error.code when HasCode: an integer number.
	Code    int64
	HasCode bool
	// IsError is result.isError when it is a boolean, else nil.
	IsError *bool
}

// A Scanner reads a JSON message fed to it with Write. It allocates nothing
// as it goes, whatever the size of the message.
type Scanner struct {
	n       int64
	st      state
	depth   int
	kinds   [maxKinds / 64]uint64 // bit set: the container at that level is an array
	invalid bool

	// the string or literal being read
	lit    string // the rest of a literal: "rue", "alse", "ull"
	isKey  bool
	hex    int // \u digits still expected
	keyHex int // the value of a \u escape in a key
	keyBuf [8]byte
	keyLen int  // -1: the key matches nothing we look for
	num    bool // the token is a number (for tok)

	top, sub  member // the key of the current member on levels 1 and 2
	objTop    bool   // the value at level 1 is an object (opened a level-2 object)
	capturing bool
	tok       [maxToken]byte
	tokLen    int // -1: too long

	sum Summary
}

type state uint8

const (
	sValue       state = iota // a value is expected
	sKeyOrEnd                 // after '{'
	sKey                      // after ',' in an object
	sColon                    // after a key
	sCommaOrEnd               // after a value inside a container
	sArrValOrEnd              // after '['
	sString
	sEscape
	sLiteral
	sMinus // after '-'
	sZero  // "0" or "-0"
	sInt   // in the integer digits
	sDot   // after '.'
	sFrac
	sE     // after 'e'
	sESign // after 'e+'
	sExp
	sEnd // after the top-level value
)

type member uint8

const (
	mOther member = iota
	mID
	mVersion
	mResult
	mError
	mMethod
	mCode
	mIsError
)

// Write feeds p to the scanner. It never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if s.invalid {
		return len(p), nil
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.st == sString && !s.capturing && !s.isKey {
			// Fast path: the bulk of a huge message is string content.
			j := i
			for j < len(p) && p[j] >= 0x20 && p[j] != '"' && p[j] != '\\' {
				j++
			}
			if j == len(p) {
				break
			}
			i, c = j, p[j]
		}
		if !s.step(c) {
			s.invalid = true
			return len(p), nil
		}
	}
	return len(p), nil
}

// Summary reports what was found so far.
func (s *Scanner) Summary() Summary {
	if s.invalid {
		return Summary{Bytes: s.n, Invalid: true}
	}
	sum := s.sum
	sum.Bytes = s.n
	// A number at the very end is complete once input ends.
	sum.Complete = s.st == sEnd || s.depth == 0 && (s.st == sZero || s.st == sInt || s.st == sFrac || s.st == sExp)
	return sum
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// step consumes one byte; it returns false when c makes the input invalid.
func (s *Scanner) step(c byte) bool {
	switch s.st {
	case sValue, sArrValOrEnd:
		if isSpace(c) {
			return true
		}
		if c == ']' && s.st == sArrValOrEnd {
			return s.close(true)
		}
		return s.beginValue(c)
	case sKeyOrEnd, sKey:
		switch {
		case isSpace(c):
			return true
		case c == '}' && s.st == sKeyOrEnd:
			return s.close(false)
		case c == '"':
			s.st, s.isKey, s.keyLen = sString, true, 0
			return true
		}
		return false
	case sColon:
		switch {
		case isSpace(c):
			return true
		case c == ':':
			s.setMember()
			s.st = sValue
			return true
		}
		return false
	case sCommaOrEnd:
		switch {
		case isSpace(c):
			return true
		case c == ',':
			if s.isArray() {
				s.st = sValue
			} else {
				s.st = sKey
			}
			return true
		case c == ']' || c == '}':
			return s.close(c == ']')
		}
		return false
	case sString:
		switch {
		case c == '"':
			return s.endString()
		case c == '\\':
			s.st = sEscape
			if !s.isKey {
				s.keep(c) // a value keeps the raw text; a key is decoded (see escaped)
			}
		case c < 0x20:
			return false
		default:
			s.keep(c)
		}
		return true
	case sEscape:
		if s.hex > 0 {
			if !isHex(c) {
				return false
			}
			s.escaped(c)
			s.hex--
			if s.hex == 0 {
				s.st = sString
			}
			return true
		}
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.escaped(c)
			s.st = sString
		case 'u':
			s.escaped(c)
			s.hex = 4
		default:
			return false
		}
		return true
	case sLiteral:
		if c != s.lit[0] {
			return false
		}
		s.keep(c)
		s.lit = s.lit[1:]
		if s.lit == "" {
			s.endScalar()
		}
		return true
	case sMinus:
		switch {
		case c == '0':
			s.st = sZero
		case '1' <= c && c <= '9':
			s.st = sInt
		default:
			return false
		}
		s.keep(c)
		return true
	case sZero, sInt:
		switch {
		case s.st == sInt && isDigit(c):
		case c == '.':
			s.st = sDot
		case c == 'e' || c == 'E':
			s.st = sE
		default:
			return s.endNumber(c)
		}
		s.keep(c)
		return true
	case sDot, sFrac:
		switch {
		case isDigit(c):
			s.st = sFrac
		case s.st == sFrac && (c == 'e' || c == 'E'):
			s.st = sE
		case s.st == sFrac:
			return s.endNumber(c)
		default:
			return false
		}
		s.keep(c)
		return true
	case sE, sESign, sExp:
		switch {
		case isDigit(c):
			s.st = sExp
		case s.st == sE && (c == '+' || c == '-'):
			s.st = sESign
		case s.st == sExp:
			return s.endNumber(c)
		default:
			return false
		}
		s.keep(c)
		return true
	case sEnd:
		return isSpace(c)
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// beginValue starts the value whose first byte is c.
func (s *Scanner) beginValue(c byte) bool {
	t := valueType(c)
	if t == NoValue {
		return false
	}
	switch {
	case s.depth == 0:
		s.sum.Type = t
	case s.depth == 1 && s.top == mResult:
		s.sum.ResultType = t
	}
	s.capturing, s.tokLen, s.num = s.wanted(), 0, false
	switch c {
	case '{', '[':
		s.capturing = false
		if s.depth == 1 {
			s.objTop = c == '{'
		}
		if s.depth < maxKinds {
			bit := uint64(1) << (s.depth % 64)
			if c == '[' {
				s.kinds[s.depth/64] |= bit
			} else {
				s.kinds[s.depth/64] &^= bit
			}
		}
		s.depth++
		if c == '[' {
			s.st = sArrValOrEnd
		} else {
			s.st = sKeyOrEnd
		}
		return true
	case '"':
		s.st, s.isKey = sString, false
	case 't':
		s.st, s.lit = sLiteral, "rue"
	case 'f':
		s.st, s.lit = sLiteral, "alse"
	case 'n':
		s.st, s.lit = sLiteral, "ull"
	case '-':
		s.st, s.num = sMinus, true
	default:
		switch {
		case c == '0':
			s.st, s.num = sZero, true
		case '1' <= c && c <= '9':
			s.st, s.num = sInt, true
		default:
			return false
		}
	}
	s.keep(c)
	return true
}

// wanted reports whether the value about to begin is one the summary keeps.
func (s *Scanner) wanted() bool {
	switch s.depth {
	case 1:
		return s.top == mID || s.top == mVersion
	case 2:
		return s.objTop && (s.top == mError && s.sub == mCode || s.top == mResult && s.sub == mIsError)
	}
	return false
}

func (s *Scanner) isArray() bool {
	d := s.depth - 1
	if d >= maxKinds {
		return false // unknown: both closers are accepted below
	}
	return s.kinds[d/64]&(uint64(1)<<(d%64)) != 0
}

// close ends the innermost container with ']' (array) or '}'.
func (s *Scanner) close(array bool) bool {
	if s.depth == 0 {
		return false
	}
	if s.depth-1 < maxKinds && s.isArray() != array {
		return false
	}
	s.depth--
	s.endValue()
	return true
}

// endValue moves past a value that just ended.
func (s *Scanner) endValue() {
	if s.depth == 0 {
		s.st = sEnd
		return
	}
	s.st = sCommaOrEnd
}

func (s *Scanner) endNumber(c byte) bool {
	s.endScalar()
	return s.step(c)
}

// keep records byte c of a token being captured, or of a key.
func (s *Scanner) keep(c byte) {
	if s.isKey {
		s.keyByte(c)
		return
	}
	if !s.capturing || s.tokLen < 0 {
		return
	}
	if s.tokLen == maxToken {
		s.tokLen = -1
		return
	}
	s.tok[s.tokLen] = c
	s.tokLen++
}

// keyByte adds c to the key being read.
func (s *Scanner) keyByte(c byte) {
	if s.keyLen < 0 {
		return
	}
	if s.keyLen == len(s.keyBuf) {
		s.keyLen = -1
		return
	}
	s.keyBuf[s.keyLen] = c
	s.keyLen++
}

// escaped handles byte c of an escape sequence, after the backslash. A
// captured value keeps its raw text, so that it decodes as the server wrote
// it; a key is decoded, since only its meaning matters.
func (s *Scanner) escaped(c byte) {
	if !s.isKey {
		s.keep(c)
		return
	}
	switch {
	case c == 'u' && s.hex == 0:
		s.keyHex = 0
	case s.hex > 0:
		s.keyHex = s.keyHex<<4 | unhex(c)
		if s.hex == 1 { // the last digit
			if s.keyHex < 0x80 {
				s.keyByte(byte(s.keyHex))
			} else {
				s.keyLen = -1 // no name we look for has other characters
			}
		}
	default:
		s.keyByte(unescape(c))
	}
}

func unhex(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

// endString ends a string: a key, or a value.
func (s *Scanner) endString() bool {
	if s.isKey {
		s.isKey = false
		s.st = sColon
		return true
	}
	s.keep('"')
	s.endScalar()
	return true
}

// setMember records, at the colon, which member the value that follows is.
func (s *Scanner) setMember() {
	m := mOther
	if s.keyLen >= 0 {
		switch string(s.keyBuf[:s.keyLen]) {
		case "id":
			m = mID
		case "jsonrpc":
			m = mVersion
		case "result":
			m = mResult
		case "error":
			m = mError
		case "method":
			m = mMethod
		case "code":
			m = mCode
		case "isError":
			m = mIsError
		}
	}
	switch s.depth {
	case 1:
		s.top, s.objTop = m, false
		// A repeated member replaces the earlier one.
		switch m {
		case mID:
			s.sum.ID = ""
		case mVersion:
			s.sum.HasVersion, s.sum.Version = true, ""
		case mResult:
			s.sum.HasResult, s.sum.IsError = true, nil
		case mError:
			s.sum.HasError, s.sum.HasCode, s.sum.Code = true, false, 0
		case mMethod:
			s.sum.HasMethod = true
		}
	case 2:
		s.sub = m
		switch {
		case s.top == mResult && m == mIsError:
			s.sum.IsError = nil
		case s.top == mError && m == mCode:
			s.sum.HasCode, s.sum.Code = false, 0
		}
	}
}

var (
	yes, no = true, false
)

// endScalar ends a string, number or literal value, and records it when it
// is one the summary keeps.
func (s *Scanner) endScalar() {
	if s.capturing && s.tokLen > 0 {
		tok := s.tok[:s.tokLen]
		switch {
		case s.depth == 1 && s.top == mVersion:
			if tok[0] == '"' {
				s.sum.Version = string(tok)
			}
		case s.depth == 1: // the id
			if tok[0] == '"' || s.num {
				s.sum.ID = string(tok)
			}
		case s.top == mResult: // isError
			switch string(tok) {
			case "true":
				s.sum.IsError = &yes
			case "false":
				s.sum.IsError = &no
			}
		case s.top == mError && s.num: // code
			if f, err := strconv.ParseFloat(string(tok), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
				s.sum.Code, s.sum.HasCode = int64(f), true
			}
		}
	}
	s.capturing = false
	s.endValue()
}
