package sns

import "github.com/heraldmq/herald/sqs"

// Regions, as for queues (sqs/region.go): a topic lives in an account of
// a region; the same name in two regions is two topics. A request acts in
// its signature's region, or the one its endpoint host names
// (sns.<region>.<host>); an ARN names its own; the home region
// (Config.Region) is the region of unsigned requests. Topics of the home
// region are stored under their bare account, as before regions existed,
// others under "<account>@<region>" (regionalStore), and so are the topic
// names subscriptions carry. Account records (SMS settings) belong to the
// account in every region.

// region normalizes a region: "" for the home region (or none given).
func (s *Service) region(r string) string { return sqs.Home(s.cfg.Region).Of(r) }

// regionName is region r as ARNs spell it ("" is the home region).
func (s *Service) regionName(r string) string { return sqs.Home(s.cfg.Region).Name(r) }

func storeAccount(account, region string) string { return sqs.StoreAccount(account, region) }

// topicFromStore turns a stored topic into the Service's view.
func topicFromStore(t *Topic) *Topic {
	if t != nil {
		t.Account, t.Region = sqs.SplitStoreAccount(t.Account)
	}
	return t
}

// topicToStore is t as the Store keys it (a copy outside the home region).
func topicToStore(t *Topic) *Topic {
	if t.Region == "" {
		return t
	}
	c := *t
	c.Account, c.Region = sqs.StoreAccount(t.Account, t.Region), ""
	return &c
}

// subFromStore turns a stored subscription into the Service's view.
func subFromStore(s *Subscription) *Subscription {
	if s != nil {
		s.TopicAccount, s.TopicRegion = sqs.SplitStoreAccount(s.TopicAccount)
	}
	return s
}

// subToStore is s as the Store keeps it (a copy outside the home region).
func subToStore(s *Subscription) *Subscription {
	if s.TopicRegion == "" {
		return s
	}
	c := *s
	c.TopicAccount, c.TopicRegion = sqs.StoreAccount(s.TopicAccount, s.TopicRegion), ""
	return &c
}
