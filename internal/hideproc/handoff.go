package hideproc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// HandoffVar names the variable that tells the re-executed process which
// descriptor holds the original command line and environment.
const HandoffVar = "MCP_FUZZ_HANDOFF_FD"

// MaxHandoff is the largest handoff written or read, in bytes. The kernel
// refuses command lines and environments far smaller than this, so a larger
// one is not ours.
const MaxHandoff = 64 << 20

// magic begins every handoff, with the format's version.
const magic = "mcp-fuzz handoff 1\n"

// errTooLarge is the error for a handoff over [MaxHandoff].
var errTooLarge = fmt.Errorf("handoff over %d bytes", MaxHandoff)

// encode returns args and env in the handoff format: [magic], then each list
// as a 4-byte big-endian count followed by its strings, each a 4-byte
// big-endian length and its bytes. Strings are kept byte for byte, whatever
// they hold.
func encode(args, env []string) ([]byte, error) {
	size := len(magic) + 8
	for _, list := range [][]string{args, env} {
		for _, s := range list {
			size += 4 + len(s)
			if size > MaxHandoff {
				return nil, errTooLarge
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	for _, list := range [][]string{args, env} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(list)))
		for _, s := range list {
			b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
	}
	return b, nil
}

// decode reads what [encode] wrote. Anything else — another magic, a count
// or length past the end, bytes left over, over [MaxHandoff] — is an error.
func decode(b []byte) (args, env []string, err error) {
	if len(b) > MaxHandoff {
		return nil, nil, errTooLarge
	}
	rest, ok := strings.CutPrefix(string(b), magic)
	if !ok {
		return nil, nil, errors.New("not a handoff (no header)")
	}
	readList := func() ([]string, error) {
		if len(rest) < 4 {
			return nil, errors.New("handoff cut short")
		}
		n := binary.BigEndian.Uint32([]byte(rest[:4]))
		rest = rest[4:]
		// Each string takes at least its 4-byte length.
		if uint64(n) > uint64(len(rest)/4) {
			return nil, fmt.Errorf("handoff claims %d strings in %d bytes", n, len(rest))
		}
		out := make([]string, 0, n)
		for range n {
			if len(rest) < 4 {
				return nil, errors.New("handoff cut short")
			}
			l := binary.BigEndian.Uint32([]byte(rest[:4]))
			rest = rest[4:]
			if uint64(l) > uint64(len(rest)) {
				return nil, fmt.Errorf("handoff claims a string of %d bytes with %d left", l, len(rest))
			}
			out = append(out, rest[:l])
			rest = rest[l:]
		}
		return out, nil
	}
	if args, err = readList(); err != nil {
		return nil, nil, err
	}
	if env, err = readList(); err != nil {
		return nil, nil, err
	}
	if rest != "" {
		return nil, nil, fmt.Errorf("handoff has %d bytes after its end", len(rest))
	}
	return args, env, nil
}

// keptNames are the variables left in the visible environment of the
// re-executed process: they carry no secret, and some are read before
// main runs — by the Go runtime (GODEBUG, GOGC, GOMAXPROCS, ...), the
// dynamic loader (LD_*), or package initialisers (NO_COLOR and TERM for
// colour, the locale and RUNEWIDTH_EASTASIAN for text width).
var keptNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TERM": true, "LANG": true, "TZ": true, "TMPDIR": true, "NO_COLOR": true,
	"CI": true, "GITHUB_ACTIONS": true, "RUNEWIDTH_EASTASIAN": true,
	"GODEBUG": true, "GOGC": true, "GOMEMLIMIT": true, "GOMAXPROCS": true,
	"GOTRACEBACK": true, "GORACE": true, "GOCOVERDIR": true,
	"LD_LIBRARY_PATH": true, "LD_PRELOAD": true,
}

// kept reports whether the variable name stays in the visible environment:
// see [keptNames]; LC_* too.
func kept(name string) bool {
	return keptNames[name] || strings.HasPrefix(name, "LC_")
}

// reduce returns the entries of environ that stay visible ([kept]), the
// first of each name only (the one getenv returns).
func reduce(environ []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || seen[name] || !kept(name) {
			continue
		}
		seen[name] = true
		out = append(out, kv)
	}
	return out
}

// restore sets every variable of env, "NAME=VALUE" entries, with setenv: the
// first entry of a name wins, as it does for getenv. Entries that cannot be
// set (no '=', an empty name, a NUL) are left out; skipped counts them.
func restore(env []string, setenv func(name, value string) error) (skipped int) {
	seen := map[string]bool{}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			skipped++
			continue
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		if setenv(name, value) != nil {
			skipped++
		}
	}
	return skipped
}
