// The timeline's SVG (cli/timeline_svg.h): one row per SM in increasing order, one bar per
// unit placed by its start and end, the makespan and the bound as marked lines, the title
// escaped, and a chart that says so when no unit ran.
#include <catch2/catch.hpp>

#include "cli/timeline_svg.h"
#include "tests/codegen/codegen_test_support.h"

using tj::cli::TimelineBar;
using tj::test::contains;

TEST_CASE("timeline SVG: rows per SM, bars by time, makespan and bound marked", "[cli][timeline]") {
  // SMs 7 and 3; time from the first start (1000): makespan 400 ns, bound 500 ns is the width.
  const std::vector<TimelineBar> bars = {{7, 1000, 1200}, {3, 1100, 1400}, {7, 1200, 1250}};
  const std::string svg = tj::cli::timeline_svg(bars, {"uneven <causal> & co", 500});
  INFO(svg);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1090.0\" height=\"96.0\"", 0) == 0);
  CHECK(contains(svg, ">uneven &lt;causal&gt; &amp; co</text>"));
  CHECK(contains(svg, ">3 units on 2 SMs (a row each, SM ids 3 to 7); time from the first start</text>"));
  CHECK(tj::test::count(svg, "<rect class=\"unit\"") == 3);
  // SM 3 is row 0 (y 41), SM 7 row 1 (y 49); x = 70 + 1000 t / 500.
  CHECK(contains(svg, "<rect class=\"unit\" x=\"70.0\" y=\"49.0\" width=\"400.0\" height=\"6.0\""));
  CHECK(contains(svg, "<rect class=\"unit\" x=\"270.0\" y=\"41.0\" width=\"600.0\" height=\"6.0\""));
  CHECK(contains(svg, "<rect class=\"unit\" x=\"470.0\" y=\"49.0\" width=\"100.0\" height=\"6.0\""));
  CHECK(contains(svg, "<line class=\"red\" x1=\"870.0\""));
  CHECK(contains(svg, ">makespan 0.000 ms</text>"));
  CHECK(contains(svg, "<line class=\"green\" x1=\"1070.0\""));
  CHECK(svg.size() > 6);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
}

TEST_CASE("timeline SVG: no units", "[cli][timeline]") {
  const std::string svg = tj::cli::timeline_svg({}, {"empty", 0});
  CHECK(contains(svg, ">no units ran</text>"));
  CHECK_FALSE(contains(svg, "<rect"));
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
}
