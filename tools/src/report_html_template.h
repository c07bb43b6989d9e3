// The self-contained HTML page of `tileperf report --html`: styles, the
// report data (@TILEPERF_DATA@) and the script that draws tables and charts.
#pragma once

namespace tileperf {

const char* report_html_template();

}  // namespace tileperf
