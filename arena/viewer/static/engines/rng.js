/* Python's random.Random(seed) for the seeds the arena deals (0 to 2**31 - 1): the Mersenne Twister seeded as
   CPython seeds it, and shuffle() as CPython shuffles, so that a game re-played here deals the same cards. */
(function (root) {
  "use strict";

  var N = 624, M = 397;

  function Random(seed) {
    if (!(Number.isInteger(seed) && seed >= 0 && seed < 4294967296)) {
      throw new Error("a seed must be an integer from 0 to 2**32 - 1, got " + seed);
    }
    this.mt = new Uint32Array(N);
    this.index = N;
    this._initByArray([seed]);
  }

  Random.prototype._initGenrand = function (s) {
    var mt = this.mt;
    mt[0] = s >>> 0;
    for (var i = 1; i < N; i++) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      // 1812433253 * prev, kept to 32 bits: multiply in 16-bit halves so that no product loses precision.
      mt[i] = (((((prev & 0xffff0000) >>> 16) * 1812433253) << 16) + (prev & 0x0000ffff) * 1812433253 + i) >>> 0;
    }
    this.index = N;
  };

  Random.prototype._initByArray = function (key) {
    var mt = this.mt;
    this._initGenrand(19650218);
    var i = 1, j = 0, k = Math.max(N, key.length);
    for (; k; k--) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ (((((prev & 0xffff0000) >>> 16) * 1664525) << 16) + (prev & 0x0000ffff) * 1664525)) +
        key[j] + j) >>> 0;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) { j = 0; }
    }
    for (k = N - 1; k; k--) {
      var p = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ (((((p & 0xffff0000) >>> 16) * 1566083941) << 16) + (p & 0x0000ffff) * 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  };

  Random.prototype._twist = function () {
    var mt = this.mt;
    for (var kk = 0; kk < N; kk++) {
      var y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % N] & 0x7fffffff);
      mt[kk] = mt[(kk + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  };

  /** The next 32 random bits, as genrand_uint32. */
  Random.prototype.uint32 = function () {
    if (this.index >= N) { this._twist(); }
    var y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };

  /** getrandbits(k) for 0 < k <= 32. */
  Random.prototype.getrandbits = function (k) {
    return this.uint32() >>> (32 - k);
  };

  /** An integer from 0 to n - 1, drawn as CPython's _randbelow draws it (n < 2**32). */
  Random.prototype.randbelow = function (n) {
    var k = 32 - Math.clz32(n);
    var r = this.getrandbits(k);
    while (r >= n) { r = this.getrandbits(k); }
    return r;
  };

  /** Shuffle list in place, exactly as random.shuffle(list). */
  Random.prototype.shuffle = function (list) {
    for (var i = list.length - 1; i > 0; i--) {
      var j = this.randbelow(i + 1);
      var t = list[i]; list[i] = list[j]; list[j] = t;
    }
  };

  root.BaliRandom = Random;
})(typeof globalThis !== "undefined" ? globalThis : this);
