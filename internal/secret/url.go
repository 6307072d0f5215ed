package secret

import (
	"net/url"
	"regexp"
	"strings"
)

// userinfo matches the credentials of a URL, scheme://user:password@.
var userinfo = regexp.MustCompile(`^([^:/?#]*:?//)[^/?#]*@`)

// HideUserinfo replaces the credentials of a URL as written, and its query,
// by ***, even in one that does not parse, and leaves the rest as it is.
func HideUserinfo(raw string) string {
	raw = userinfo.ReplaceAllString(raw, "${1}***@")
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[:i] + "?***"
	}
	return raw
}

// RedactURL hides credentials in a URL (user:password@, token-like query
// values) before it is recorded in a report.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return HideUserinfo(raw)
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	q := u.Query()
	changed := false
	for k := range q {
		switch strings.ToLower(k) {
		case "token", "access_token", "api_key", "apikey", "key", "secret", "password", "auth":
			q.Set(k, "***")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
