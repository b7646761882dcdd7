#include "llm/response_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace kernelarc::llm {
namespace {

const std::string kBase =
    "#include <kernelarc/candidate_abi.h>\n"
    "#define VEC 4\n"
    "int scale(int x) {\n"
    "  return x * 2;\n"
    "}\n";

const std::string kNewSource =
    "#include <kernelarc/candidate_abi.h>\n"
    "int scale(int x) {\n"
    "  return x << 1;\n"
    "}\n";

const std::string kAskForOneBlock =
    "give exactly one fenced code block with the whole candidate source (or a unified diff against the incumbent)";

TEST(ResponseParser, ReadsAWholeSourceAndTheHypothesisLine) {
  const ParsedResponse parsed = parse_response(
      "Hypothesis: a shift is cheaper than a multiply.\n\n```cpp\n" + kNewSource + "```\n", kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  ASSERT_TRUE(parsed.source.has_value());
  EXPECT_EQ(*parsed.source, kNewSource);
  EXPECT_FALSE(parsed.from_diff);
  EXPECT_EQ(parsed.hypothesis, "a shift is cheaper than a multiply.");
  EXPECT_TRUE(parsed.knobs.empty());
}

TEST(ResponseParser, HypothesisLineInAnyCaseWithMarkdownAnywhereOutsideCode) {
  const std::string code = "```cuda\n" + kNewSource + "```\n";
  EXPECT_EQ(parse_response("Plan first.\n" + code + "**Hypothesis:** shifts   are cheap\n", kBase).hypothesis,
            "shifts are cheap");
  EXPECT_EQ(parse_response("- HYPOTHESIS: shifts\n" + code, kBase).hypothesis, "shifts");
  EXPECT_EQ(parse_response("**Hypothesis**: bold label\n" + code, kBase).hypothesis, "bold label");
  EXPECT_EQ(parse_response("## Hypothesis:\nthe text on the next line\n\n" + code, kBase).hypothesis,
            "the text on the next line");
  EXPECT_EQ(parse_response("1. `Hypothesis: in backticks`\n" + code, kBase).hypothesis, "in backticks");
  EXPECT_EQ(parse_response("2) > __Hypothesis__ : quoted, spaced label\n" + code, kBase).hypothesis, "quoted, spaced label");
  EXPECT_EQ(parse_response("Hypothesis testing says: not a label.\n" + code, kBase).hypothesis,
            "Hypothesis testing says: not a label.");
}

TEST(ResponseParser, AHypothesisLineInsideCodeDoesNotCount) {
  const ParsedResponse parsed =
      parse_response("Vector loads help here. More text.\n```cpp\n// Hypothesis: inside the code\n" + kNewSource + "```\n", kBase);
  EXPECT_EQ(parsed.hypothesis, "Vector loads help here.");
}

TEST(ResponseParser, WithoutAHypothesisLineTheFirstSentenceOfTheProseBeforeTheCode) {
  const ParsedResponse parsed = parse_response(
      "## Plan\nI replace the multiply\nby a shift, which is cheaper! Then the rest. \n```cpp\n" + kNewSource +
          "```\nAfter the code, more words.\n",
      kBase);
  EXPECT_TRUE(parsed.usable());
  EXPECT_EQ(parsed.hypothesis, "I replace the multiply by a shift, which is cheaper!");
}

TEST(ResponseParser, TheFirstSentenceSkipsListMarkers) {
  EXPECT_EQ(parse_response("1. **Unroll** the loop by 4. 2. Done.\n```cpp\n" + kNewSource + "```\n", kBase).hypothesis,
            "Unroll the loop by 4.");
}

TEST(ResponseParser, NoHypothesisAtAllIsNotAComplaint) {
  const ParsedResponse parsed = parse_response("```cpp\n" + kNewSource + "```\n", kBase);
  EXPECT_TRUE(parsed.usable());
  EXPECT_EQ(parsed.hypothesis, "no hypothesis given");
}

TEST(ResponseParser, ALongHypothesisIsCutAtAWordBoundary) {
  std::string words;
  for (int i = 0; i < 30; ++i) words += "abcdefghi ";  // 10 characters a word with its space
  const ParsedResponse parsed = parse_response("Hypothesis: " + words + "\n```cpp\n" + kNewSource + "```\n", kBase);
  std::string expected;
  for (int i = 0; i < 18; ++i) expected += "abcdefghi ";
  expected += "abcdefghi...";  // 192 characters: one more word would make 202 with the dots
  EXPECT_EQ(parsed.hypothesis, expected);
  EXPECT_LE(parsed.hypothesis.size(), 200u);
}

TEST(ResponseParser, ADiffIsAppliedToTheBase) {
  const ParsedResponse parsed = parse_response(
      "Hypothesis: shift.\n```diff\n--- a/candidate.cpp\n+++ b/candidate.cpp\n@@ -3,3 +3,3 @@\n int scale(int x) {\n"
      "-  return x * 2;\n+  return x << 1;\n }\n```\n",
      kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  EXPECT_TRUE(parsed.from_diff);
  ASSERT_TRUE(parsed.source.has_value());
  EXPECT_EQ(*parsed.source, "#include <kernelarc/candidate_abi.h>\n#define VEC 4\nint scale(int x) {\n  return x << 1;\n}\n");
}

TEST(ResponseParser, AnUntaggedOrMistaggedBlockThatIsADiffIsApplied) {
  const std::string diff = "@@ -4 +4 @@\n-  return x * 2;\n+  return x + x;\n";
  for (const std::string fence : {"```\n", "```cpp\n", "~~~patch\n"}) {
    const std::string close = fence.substr(0, 3) + "\n";
    const ParsedResponse parsed = parse_response("Hypothesis: add.\n" + fence + diff + close, kBase);
    EXPECT_TRUE(parsed.from_diff) << fence;
    ASSERT_TRUE(parsed.source.has_value()) << fence;
    EXPECT_NE(parsed.source->find("return x + x;"), std::string::npos);
  }
}

TEST(ResponseParser, ADiffThatDoesNotApplyAsksForTheWholeFile) {
  const ParsedResponse parsed =
      parse_response("Hypothesis: x.\n```diff\n@@ -4 +4 @@\n-  return x * 3;\n+  return x << 1;\n```\n", kBase);
  EXPECT_FALSE(parsed.usable());
  EXPECT_FALSE(parsed.source.has_value());
  EXPECT_EQ(parsed.complaint,
            "The unified diff does not apply to the incumbent: hunk 1 (@@ -4 +4 @@) matches nowhere within 50 lines of "
            "line 4: its line \"  return x * 3;\" does not match line 4 of the source (\"  return x * 2;\"). Send the "
            "whole file instead: one fenced code block with the complete candidate source.");
}

TEST(ResponseParser, OfSeveralSourceBlocksTheLastWins) {
  const ParsedResponse parsed = parse_response(
      "Hypothesis: h.\nThe old code:\n```cpp\nint old;\n```\nThe new code:\n```c++\n" + kNewSource + "```\n", kBase);
  EXPECT_TRUE(parsed.usable());
  EXPECT_EQ(*parsed.source, kNewSource);
}

TEST(ResponseParser, ADiffWinsOverASnippetAfterIt) {
  const ParsedResponse parsed = parse_response(
      "Hypothesis: h.\n```diff\n@@ -4 +4 @@\n-  return x * 2;\n+  return x << 1;\n```\nso the line becomes\n"
      "```cpp\n  return x << 1;\n```\n",
      kBase);
  EXPECT_TRUE(parsed.from_diff);
  EXPECT_EQ(*parsed.source, "#include <kernelarc/candidate_abi.h>\n#define VEC 4\nint scale(int x) {\n  return x << 1;\n}\n");
}

TEST(ResponseParser, OtherLanguagesAreNotCandidates) {
  const ParsedResponse parsed = parse_response("Hypothesis: h.\n```python\nprint(1)\n```\n", kBase);
  EXPECT_EQ(parsed.complaint, "The answer has no candidate: " + kAskForOneBlock + ".");
}

TEST(ResponseParser, TildeFencesLanguageTagsInAnyCaseAndCrlf) {
  const ParsedResponse parsed =
      parse_response("Hypothesis: tildes.\r\n~~~~CUDA\r\nint a;\r\n```\r\nint b;\r\n~~~~\r\n", kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  EXPECT_EQ(*parsed.source, "int a;\n```\nint b;\n");
  EXPECT_EQ(parsed.hypothesis, "tildes.");
}

TEST(ResponseParser, AFenceIndentedInAListIndentsItsLinesAsMuch) {
  const ParsedResponse parsed =
      parse_response("1. Hypothesis: indented.\n2. The code:\n   ```cpp\n   int f() {\n     return 1;\n   }\n   ```\n", kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  EXPECT_EQ(*parsed.source, "int f() {\n  return 1;\n}\n");
  EXPECT_EQ(parsed.hypothesis, "indented.");
}

TEST(ResponseParser, AnUnclosedBlockSaysTheAnswerMayHaveBeenCutOff) {
  const ParsedResponse parsed = parse_response("Hypothesis: h.\n\n```cpp\nint scale(int x) {\n  return", kBase);
  EXPECT_FALSE(parsed.usable());
  EXPECT_EQ(parsed.complaint,
            "The code block opened on line 3 is not closed (no closing ```): the answer may have been cut off. Answer "
            "again with the whole block, closed by ```.");
}

TEST(ResponseParser, NoSourceAndNoKnobsAsksForOneBlock) {
  const ParsedResponse parsed = parse_response("I think we should use vector loads.", kBase);
  EXPECT_EQ(parsed.complaint, "The answer has no candidate: " + kAskForOneBlock + ".");
  EXPECT_EQ(parsed.hypothesis, "I think we should use vector loads.");
}

TEST(ResponseParser, AnEmptyBlockIsAComplaint) {
  EXPECT_EQ(parse_response("Hypothesis: h.\n```cpp\n\n  \n```\n", kBase).complaint,
            "The code block on line 2 is empty: " + kAskForOneBlock + ".");
  EXPECT_EQ(parse_response("Hypothesis: h.\n```diff\n```\n", kBase).complaint,
            "The code block on line 2 is empty: " + kAskForOneBlock + ".");
}

TEST(ResponseParser, KnobsLineAloneIsUsable) {
  const ParsedResponse parsed = parse_response("Hypothesis: wider vectors.\nKnobs: {\"VEC\": 8, \"THREADS\": 2}\n", kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  EXPECT_FALSE(parsed.source.has_value());
  EXPECT_EQ(parsed.knobs, (std::map<std::string, std::int64_t>{{"VEC", 8}, {"THREADS", 2}}));
  EXPECT_EQ(parsed.hypothesis, "wider vectors.");
}

TEST(ResponseParser, KnobsFromJsonBlocksAndDecoratedLines) {
  EXPECT_EQ(parse_response("Hypothesis: h.\n```json\n{\"knobs\": {\"VEC\": 16}}\n```\n", kBase).knobs,
            (std::map<std::string, std::int64_t>{{"VEC", 16}}));
  EXPECT_EQ(parse_response("Hypothesis: h.\n**Knobs:** `{\"VEC\": -2}`\n", kBase).knobs,
            (std::map<std::string, std::int64_t>{{"VEC", -2}}));
  const ParsedResponse both =
      parse_response("Hypothesis: h.\n```cpp\n" + kNewSource + "```\nknobs: {\"THREADS\": 4}\n", kBase);
  EXPECT_EQ(*both.source, kNewSource);
  EXPECT_EQ(both.knobs, (std::map<std::string, std::int64_t>{{"THREADS", 4}}));
}

TEST(ResponseParser, AKnobsLineThatIsProseIsIgnored) {
  const ParsedResponse parsed = parse_response("Hypothesis: h.\nKnobs: unchanged\n```cpp\n" + kNewSource + "```\n", kBase);
  EXPECT_TRUE(parsed.usable()) << parsed.complaint;
  EXPECT_TRUE(parsed.knobs.empty());
}

TEST(ResponseParser, AKnobThatIsNotAnIntegerIsNamed) {
  EXPECT_EQ(parse_response("Hypothesis: h.\nKnobs: {\"VEC\": 8, \"THREADS\": \"4\"}\n", kBase).complaint,
            "Knob \"THREADS\" is \"4\", not an integer: give knob values as JSON integers, as in Knobs: {\"THREADS\": 4}.");
  EXPECT_EQ(parse_response("Hypothesis: h.\n```json\n{\"VEC\": 2.5}\n```\n", kBase).complaint,
            "Knob \"VEC\" is 2.5, not an integer: give knob values as JSON integers, as in Knobs: {\"VEC\": 4}.");
}

TEST(ResponseParser, KnobsThatAreNotAJsonObjectAreAComplaint) {
  const ParsedResponse parsed = parse_response("Hypothesis: h.\n```json\n[1, 2]\n```\n", kBase);
  EXPECT_EQ(parsed.complaint,
            "The knob values in the json block on line 2 are not a JSON object: write them as Knobs: {\"NAME\": 4, ...}.");
  const ParsedResponse invalid = parse_response("Hypothesis: h.\nKnobs: {VEC: 8}\n", kBase);
  EXPECT_EQ(invalid.complaint.rfind("The knob values in the line \"Knobs: {VEC: 8}\" are not valid JSON (", 0), 0u)
      << invalid.complaint;
}

}  // namespace
}  // namespace kernelarc::llm
