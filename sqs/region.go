package sqs

import "strings"

// Regions. A queue lives in an account of a region, as on AWS: the same
// name in two regions is two queues. A request acts in the region of its
// signature's credential scope (Caller.Region), or in the one a queue URL's
// host names (sqs.<region>.<host>, <region>.queue.amazonaws.com), and an
// ARN names its own. The deployment's home region (Config.Region,
// --aws-region) is also the region of unsigned requests.
//
// Storage: the Store keys queues by account and name. A queue of the home
// region is stored under its bare account, as before regions existed, so
// that data written by an older Herald is the home region's without a
// migration; a queue of another region is stored under
// "<account>@<region>" (accounts never contain '@'). regionalStore does
// the mapping, so that engines know nothing of regions and the Service
// never sees a stored key: Queue.Account is always the account and
// Queue.Region "" for the home region, else the region.

// regionSep separates account and region in a stored account key.
const regionSep = "@"

// ValidRegion reports whether r could name an AWS region: lower-case
// letters, digits and inner hyphens, at most 64 bytes.
func ValidRegion(r string) bool {
	if r == "" || len(r) > 64 || r[0] == '-' || r[len(r)-1] == '-' {
		return false
	}
	for _, ch := range r {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') && ch != '-' {
			return false
		}
	}
	return true
}

// RegionOfHost returns the region an endpoint's host names, "" if none:
// "sqs.<region>.<anything>" or "sns.<region>.<anything>" (AWS's endpoints,
// and local ones such as sqs.eu-west-1.localhost),
// "<region>.queue.amazonaws.com" (SQS's legacy form) and
// "queue.amazonaws.com" (legacy us-east-1).
func RegionOfHost(host string) string {
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	host = strings.ToLower(host)
	if host == "queue.amazonaws.com" {
		return "us-east-1"
	}
	if r, ok := strings.CutSuffix(host, ".queue.amazonaws.com"); ok && ValidRegion(r) && !strings.Contains(r, ".") {
		return r
	}
	for _, service := range []string{"sqs.", "sns."} {
		if rest, ok := strings.CutPrefix(host, service); ok {
			if r, _, ok := strings.Cut(rest, "."); ok && ValidRegion(r) && strings.Contains(r, "-") {
				return r
			}
		}
	}
	return ""
}

// Home is a deployment's home region, the region of requests that name
// none. SQS and SNS resolve regions through it.
type Home string

// Of normalizes region r: "" for the home region (or none given), else r.
func (h Home) Of(r string) string {
	if r == string(h) {
		return ""
	}
	return r
}

// Name is region r as ARNs spell it ("" is the home region).
func (h Home) Name(r string) string {
	if r == "" {
		return string(h)
	}
	return r
}

func (s *Service) region(r string) string     { return Home(s.cfg.Region).Of(r) }
func (s *Service) regionName(r string) string { return Home(s.cfg.Region).Name(r) }

// StoreAccount is the account key a Store keeps the resources of account
// in region under ("" is the home region): the account alone in the home
// region, "<account>@<region>" elsewhere. SNS keys its topics the same way.
func StoreAccount(account, region string) string {
	if region == "" {
		return account
	}
	return account + regionSep + region
}

// SplitStoreAccount undoes StoreAccount.
func SplitStoreAccount(key string) (account, region string) {
	account, region, _ = strings.Cut(key, regionSep)
	return account, region
}

func storeAccount(account, region string) string { return StoreAccount(account, region) }

// fromStore turns a record as stored into the Service's view: Account the
// account, Region the region ("" for the home region).
func fromStore(q *Queue) *Queue {
	if q != nil {
		q.Account, q.Region = SplitStoreAccount(q.Account)
	}
	return q
}

// toStore is q as the Store keys it: a copy whose Account carries the
// region, when q is not of the home region.
func toStore(q *Queue) *Queue {
	if q.Region == "" {
		return q
	}
	c := *q
	c.Account, c.Region = storeAccount(q.Account, q.Region), ""
	return &c
}
