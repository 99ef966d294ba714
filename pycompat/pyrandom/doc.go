// Package pyrandom is the home of Python's and numpy's pseudo-random
// generators, bit for bit: the Mersenne Twister MT19937 of CPython's
// Modules/_randommodule.c, random.Random over it (seed from an int or a str
// as random.seed does, random(), getrandbits, randrange, randint, choice,
// shuffle, sample, and getstate/setstate's 624 words and position), and
// numpy's legacy numpy.random.RandomState (its seeding, random_sample,
// randint, choice, shuffle, permutation), for environments whose Python
// original draws episodes or samples from a seeded generator.
//
// Nothing lives here yet: this package holds the place, so that the
// generators are written here, with tests against CPython's and numpy's own
// sequences, when an environment first needs them.
package pyrandom
