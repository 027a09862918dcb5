package proxy

import (
	"errors"
	"net"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// brokerPattern is one entry of Config.AllowBrokers: a host glob or an
// address prefix, and a port (0: any).
type brokerPattern struct {
	glob   string // lower case; "" when prefix is set
	prefix netip.Prefix
	port   int
}

// parseBrokerPatterns checks and parses Config.AllowBrokers.
func parseBrokerPatterns(ps []string) ([]brokerPattern, error) {
	var out []brokerPattern
	for _, s := range ps {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		bad := func(why string) error {
			return errors.New("proxy: broker pattern " + strconv.Quote(s) + " " + why)
		}
		host, port := s, 0
		if h, ps, err := net.SplitHostPort(s); err == nil {
			n, err := strconv.Atoi(ps)
			if err != nil || n < 1 || n > 65535 {
				return nil, bad("has a port that is not a number from 1 to 65535")
			}
			host, port = h, n
		}
		bp := brokerPattern{port: port}
		if pf, err := netip.ParsePrefix(host); err == nil {
			bp.prefix = pf.Masked()
		} else if a, err := netip.ParseAddr(host); err == nil {
			bp.prefix = netip.PrefixFrom(a, a.BitLen())
		} else {
			if strings.Contains(host, "/") {
				return nil, bad("is neither a host pattern nor an address prefix")
			}
			bp.glob = strings.ToLower(host)
			if _, err := path.Match(bp.glob, ""); err != nil {
				return nil, bad("is not a valid pattern (" + err.Error() + ")")
			}
		}
		out = append(out, bp)
	}
	return out, nil
}

// allowed reports whether the proxy may relay to e: no patterns allow
// everything.
func (p *Proxy) allowed(e Endpoint) bool {
	if len(p.allow) == 0 {
		return true
	}
	host := strings.ToLower(e.Host)
	a, aerr := netip.ParseAddr(host)
	for _, bp := range p.allow {
		if bp.port != 0 && bp.port != e.Port {
			continue
		}
		if bp.glob == "" {
			if aerr == nil && bp.prefix.Contains(a.Unmap()) {
				return true
			}
			continue
		}
		if ok, _ := path.Match(bp.glob, host); ok {
			return true
		}
	}
	return false
}
