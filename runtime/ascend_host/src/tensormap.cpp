// pto-wsp host runtime: the TensorMap (see tensormap.h).
#include "tensormap.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pto {
namespace wsp {
namespace host {

namespace {

int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's a % b for b > 0.
__int128 pymod(__int128 a, __int128 b) {
  __int128 r = a % b;
  return r < 0 ? r + b : r;
}

int64_t gcd64(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// The inverse of a modulo m (gcd(a, m) = 1, m > 1).
__int128 inverse(__int128 a, __int128 m) {
  __int128 t = 0, nt = 1, r = m, nr = pymod(a, m);
  while (nr != 0) {
    __int128 q = r / nr;
    __int128 tmp = t - q * nt;
    t = nt;
    nt = tmp;
    tmp = r - q * nr;
    r = nr;
    nr = tmp;
  }
  return pymod(t, m);
}

bool is_unit(const Geom& g) {
  for (int d = 0; d < g.rank; ++d)
    if (g.stride[d] != 1) return false;
  return true;
}

bool is_empty(const Geom& g) {
  for (int d = 0; d < g.rank; ++d)
    if (g.size[d] == 0) return true;
  return false;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

bool progressions_intersect(int64_t o1, int64_t n1, int64_t s1, int64_t o2, int64_t n2,
                            int64_t s2) {
  if (n1 <= 0 || n2 <= 0) return false;
  const __int128 lo = o1 > o2 ? o1 : o2;
  const __int128 e1 = static_cast<__int128>(o1) + static_cast<__int128>(n1 - 1) * s1;
  const __int128 e2 = static_cast<__int128>(o2) + static_cast<__int128>(n2 - 1) * s2;
  const __int128 hi = e1 < e2 ? e1 : e2;
  if (lo > hi) return false;
  if (s1 == s2) return pymod(static_cast<__int128>(o2) - o1, s1) == 0;
  if (n1 == 1) return pymod(static_cast<__int128>(o1) - o2, s2) == 0;
  if (n2 == 1) return pymod(static_cast<__int128>(o2) - o1, s1) == 0;
  const int64_t g = gcd64(s1, s2);
  const __int128 diff = static_cast<__int128>(o2) - o1;
  if (diff % g != 0) return false;
  const __int128 m = s2 / g;
  const __int128 t = m > 1 ? pymod(pymod(diff / g, m) * inverse(s1 / g, m), m) : 0;
  const __int128 x0 = static_cast<__int128>(o1) + s1 * t;
  const __int128 lcm = static_cast<__int128>(s1) * m;
  return lo + pymod(x0 - lo, lcm) <= hi;
}

bool geom_equal(const Geom& a, const Geom& b) {
  if (a.base != b.base || a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.off[d] != b.off[d] || a.size[d] != b.size[d] || a.stride[d] != b.stride[d])
      return false;
  return true;
}

bool overlaps(const Geom& a, const Geom& b) {
  if (a.base != b.base) return false;
  if (a.rank != b.rank) throw std::runtime_error("regions of one tensor with different ranks");
  if (is_empty(a) || is_empty(b)) return false;
  for (int d = 0; d < a.rank; ++d) {
    const int64_t o1 = a.off[d], n1 = a.size[d], s1 = a.stride[d];
    const int64_t o2 = b.off[d], n2 = b.size[d], s2 = b.stride[d];
    if (s1 == 1 && s2 == 1) {
      if (o1 + n1 <= o2 || o2 + n2 <= o1) return false;
    } else if (!progressions_intersect(o1, n1, s1, o2, n2, s2)) {
      return false;
    }
  }
  return true;
}

bool contains(const Geom& a, const Geom& b) {
  if (a.base != b.base || a.rank != b.rank) return false;
  if (is_empty(b)) return true;
  if (is_empty(a)) return false;
  for (int d = 0; d < a.rank; ++d) {
    const int64_t o1 = a.off[d], n1 = a.size[d], s1 = a.stride[d];
    const int64_t o2 = b.off[d], n2 = b.size[d], s2 = b.stride[d];
    const int64_t last2 = o2 + (n2 - 1) * s2;
    if (o2 < o1 || last2 > o1 + (n1 - 1) * s1 || (o2 - o1) % s1 != 0) return false;
    if (n2 > 1 && s2 % s1 != 0) return false;
  }
  return true;
}

size_t GeomHash::operator()(const Geom& g) const {
  uint64_t h = g.base * 0x9E3779B97F4A7C15ull;
  for (int d = 0; d < g.rank; ++d) {
    h = mix(h, static_cast<uint64_t>(g.off[d]));
    h = mix(h, static_cast<uint64_t>(g.size[d]) * 31u + static_cast<uint64_t>(g.stride[d]));
  }
  return static_cast<size_t>(h);
}

size_t CellHash::operator()(const Cell& c) const {
  uint64_t h = 0x51ED27u;
  for (int d = 0; d < rank; ++d) h = mix(h, static_cast<uint64_t>(c.k[d]));
  return static_cast<size_t>(h);
}

bool CellEq::operator()(const Cell& a, const Cell& b) const {
  for (int d = 0; d < rank; ++d)
    if (a.k[d] != b.k[d]) return false;
  return true;
}

TensorState& TensorMap::state(uint64_t base) {
  if (last_state_ != nullptr && last_base_ == base) return *last_state_;
  auto it = tensors_.find(base);
  if (it == tensors_.end()) it = tensors_.emplace(base, std::make_unique<TensorState>()).first;
  last_base_ = base;
  last_state_ = it->second.get();
  return *last_state_;
}

int32_t TensorMap::new_entry(const Geom& g, bool unit) {
  int32_t e;
  if (!free_.empty()) {
    e = free_.back();
    free_.pop_back();
  } else {
    e = static_cast<int32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& en = entries_[e];
  en.g = g;
  en.writer = -1;
  en.readers.clear();
  en.alone = true;
  en.unit = unit;
  en.grid = -1;
  return e;
}

int32_t TensorMap::classify(TensorState& st, const Geom& g, int64_t* width, int64_t* residue) {
  for (int d = 0; d < g.rank; ++d) {
    width[d] = g.size[d] * g.stride[d];
    residue[d] = static_cast<int64_t>(pymod(g.off[d], width[d]));
  }
  for (size_t i = 0; i < st.grids.size(); ++i) {
    const Grid& grid = st.grids[i];
    if (!grid.alive) continue;
    bool same = true;
    for (int d = 0; d < g.rank && same; ++d)
      same = grid.size[d] == g.size[d] && grid.stride[d] == g.stride[d] &&
             grid.residue[d] == residue[d];
    if (same) return static_cast<int32_t>(i);
  }
  return -1;
}

void TensorMap::insert(TensorState& st, int32_t e, int32_t grid, const int64_t* width,
                       const int64_t* residue) {
  Entry& en = entries_[e];
  st.exact.emplace(en.g, e);
  if (grid < 0 && st.alive_grids < kMaxGrids) {
    size_t slot = 0;
    while (slot < st.grids.size() && st.grids[slot].alive) ++slot;
    if (slot == st.grids.size()) st.grids.emplace_back();
    Grid& gr = st.grids[slot];
    gr.alive = true;
    gr.unit = en.unit;
    for (int d = 0; d < en.g.rank; ++d) {
      gr.size[d] = en.g.size[d];
      gr.stride[d] = en.g.stride[d];
      gr.width[d] = width[d];
      gr.residue[d] = residue[d];
    }
    gr.cells = std::make_unique<std::unordered_map<Cell, int32_t, CellHash, CellEq>>(
        16, CellHash{en.g.rank}, CellEq{en.g.rank});
    ++st.alive_grids;
    grid = static_cast<int32_t>(slot);
  }
  if (grid >= 0) {
    en.grid = grid;
    for (int d = 0; d < en.g.rank; ++d) en.cell.k[d] = floordiv(en.g.off[d], width[d]);
    (*st.grids[grid].cells)[en.cell] = e;
    return;
  }
  en.grid = -1;
  st.others.push_back(e);
}

void TensorMap::remove(TensorState& st, int32_t e) {
  Entry& en = entries_[e];
  st.exact.erase(en.g);
  if (en.grid >= 0) {
    Grid& gr = st.grids[en.grid];
    gr.cells->erase(en.cell);
    if (gr.cells->empty()) {
      gr.alive = false;
      --st.alive_grids;
    }
  } else {
    auto it = std::find(st.others.begin(), st.others.end(), e);
    if (it != st.others.end()) {
      *it = st.others.back();
      st.others.pop_back();
    }
  }
  en.readers.clear();
  en.readers.shrink_to_fit();
  free_.push_back(e);
}

void TensorMap::find_in_grid(const Grid& grid, const Geom& g, bool unit,
                             std::vector<int32_t>& found) {
  const int rank = g.rank;
  Cell k0{}, k1{};
  bool single = true;
  for (int d = 0; d < rank; ++d) {
    k0.k[d] = floordiv(g.off[d] - grid.residue[d], grid.width[d]);
    const int64_t last = g.off[d] + (g.size[d] - 1) * g.stride[d];
    k1.k[d] = floordiv(last - grid.residue[d], grid.width[d]);
    single = single && k0.k[d] == k1.k[d];
  }
  const bool exact = grid.unit && unit;
  auto& cells = *grid.cells;
  if (single) {
    auto it = cells.find(k0);
    if (it != cells.end() && (exact || overlaps(entries_[it->second].g, g)))
      found.push_back(it->second);
    return;
  }
  // How many cells the bounding box covers (saturating).
  uint64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const uint64_t n = static_cast<uint64_t>(k1.k[d] - k0.k[d] + 1);
    count = (count > (1ull << 40) / (n ? n : 1)) ? (1ull << 41) : count * n;
  }
  if (count <= cells.size()) {
    Cell c = k0;
    while (true) {
      auto it = cells.find(c);
      if (it != cells.end() && (exact || overlaps(entries_[it->second].g, g)))
        found.push_back(it->second);
      int d = rank - 1;
      while (d >= 0) {
        if (++c.k[d] <= k1.k[d]) break;
        c.k[d] = k0.k[d];
        --d;
      }
      if (d < 0) break;
    }
  } else {
    for (const auto& kv : cells)
      if (overlaps(entries_[kv.second].g, g)) found.push_back(kv.second);
  }
}

void TensorMap::overlapping(TensorState& st, const Geom& g, bool unit, int32_t own,
                            std::vector<int32_t>& found) {
  for (size_t i = 0; i < st.grids.size(); ++i)
    if (st.grids[i].alive && static_cast<int32_t>(i) != own)
      find_in_grid(st.grids[i], g, unit, found);
  for (int32_t e : st.others)
    if (overlaps(entries_[e].g, g)) found.push_back(e);
}

void TensorMap::access(const TensorRegion& r, uint8_t access, uint32_t task,
                       std::vector<uint32_t>& raw, std::vector<uint32_t>& waw,
                       std::vector<uint32_t>& war) {
  Geom g;
  g.base = r.base;
  g.rank = r.rank;
  for (int d = 0; d < kMaxRank; ++d) {
    const bool in = d < r.rank;
    g.off[d] = in ? r.offsets[d] : 0;
    g.size[d] = in ? r.sizes[d] : 1;
    g.stride[d] = in ? r.strides[d] : 1;
  }
  if (is_empty(g)) return;
  const bool reads = access != static_cast<uint8_t>(Access::Out);
  const bool writes = access != static_cast<uint8_t>(Access::In);
  TensorState& st = state(g.base);
  auto found = st.exact.find(g);
  int32_t entry = found == st.exact.end() ? -1 : found->second;
  if (entry >= 0 && entries_[entry].alone) {
    // The same region again, and nothing else on this tensor overlaps it.
    Entry& en = entries_[entry];
    if (writes) {
      if (en.writer >= 0) (reads ? raw : waw).push_back(static_cast<uint32_t>(en.writer));
      war.insert(war.end(), en.readers.begin(), en.readers.end());
      en.writer = task;
      en.readers.clear();
    } else {
      if (en.writer >= 0) raw.push_back(static_cast<uint32_t>(en.writer));
      if (en.readers.empty() || en.readers.back() != task) en.readers.push_back(task);
    }
    return;
  }
  if (st.rank != g.rank) {
    if (st.rank >= 0)
      throw std::runtime_error("a tensor accessed with regions of rank " + std::to_string(g.rank) +
                               " after rank " + std::to_string(st.rank));
    st.rank = g.rank;
  }
  const bool unit = is_unit(g);
  int64_t width[kMaxRank], residue[kMaxRank];
  const int32_t grid = classify(st, g, width, residue);
  std::vector<int32_t>& cands = cands_;
  cands.clear();
  if (!st.exact.empty()) overlapping(st, g, unit, grid, cands);
  if (entry >= 0 && entries_[entry].grid >= 0) cands.push_back(entry);
  if (writes) {
    std::vector<uint32_t>& dst = reads ? raw : waw;
    for (int32_t c : cands) {
      const Entry& ce = entries_[c];
      if (ce.writer >= 0) dst.push_back(static_cast<uint32_t>(ce.writer));
      war.insert(war.end(), ce.readers.begin(), ce.readers.end());
    }
    bool kept = false;
    for (int32_t c : cands) {
      if (c == entry) continue;
      if (contains(g, entries_[c].g)) {
        remove(st, c);
      } else {
        entries_[c].alone = false;
        kept = true;
      }
    }
    if (entry < 0) {
      entry = new_entry(g, unit);
      insert(st, entry, grid, width, residue);
    }
    Entry& en = entries_[entry];
    if (kept) en.alone = false;
    en.writer = task;
    en.readers.clear();
  } else {
    for (int32_t c : cands)
      if (entries_[c].writer >= 0) raw.push_back(static_cast<uint32_t>(entries_[c].writer));
    if (entry < 0) {
      entry = new_entry(g, unit);
      insert(st, entry, grid, width, residue);
      if (!cands.empty()) {
        entries_[entry].alone = false;
        for (int32_t c : cands) entries_[c].alone = false;
      }
    }
    Entry& en = entries_[entry];
    if (en.readers.empty() || en.readers.back() != task) en.readers.push_back(task);
  }
}

void TensorMap::gc_before(uint32_t task) {
  for (auto& kv : tensors_) {
    TensorState& st = *kv.second;
    std::vector<int32_t> dead;
    for (const auto& ex : st.exact) {
      Entry& en = entries_[ex.second];
      if (en.writer >= 0 && en.writer < task) en.writer = -1;
      if (!en.readers.empty() && en.readers.front() < task) {
        auto first = std::lower_bound(en.readers.begin(), en.readers.end(), task);
        en.readers.erase(en.readers.begin(), first);
      }
      if (en.writer < 0 && en.readers.empty()) dead.push_back(ex.second);
    }
    for (int32_t e : dead) remove(st, e);
  }
}

size_t TensorMap::size() const {
  size_t n = 0;
  for (const auto& kv : tensors_) n += kv.second->exact.size();
  return n;
}

}  // namespace host
}  // namespace wsp
}  // namespace pto
