#ifndef BYTECLUB_CCMARKGFM_H
#define BYTECLUB_CCMARKGFM_H

/*
 * cmark-gfm (GitHub's CommonMark parser) and its core extensions: tables, strikethrough,
 * autolinks and task lists. Debian ships no pkg-config file for the extensions library, so the
 * module map links both libraries by name.
 *
 * CMARK_NODE_* values are built from other macros (CMARK_NODE_TYPE_BLOCK | 0x0009), which Swift
 * does not import reliably, and CMARK_OPT_* are macros; they are re-exported as constants.
 */

#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>

static const int BC_CMARK_OPT_SOURCEPOS = CMARK_OPT_SOURCEPOS;
static const int BC_CMARK_OPT_DEFAULT = CMARK_OPT_DEFAULT;
static const int BC_CMARK_OPT_FOOTNOTES = CMARK_OPT_FOOTNOTES;
static const int BC_CMARK_OPT_UNSAFE = CMARK_OPT_UNSAFE;
static const int BC_CMARK_OPT_VALIDATE_UTF8 = CMARK_OPT_VALIDATE_UTF8;
static const int BC_CMARK_OPT_GITHUB_PRE_LANG = CMARK_OPT_GITHUB_PRE_LANG;

static const cmark_node_type BC_CMARK_NODE_DOCUMENT = CMARK_NODE_DOCUMENT;
static const cmark_node_type BC_CMARK_NODE_LIST = CMARK_NODE_LIST;
static const cmark_node_type BC_CMARK_NODE_HTML_BLOCK = CMARK_NODE_HTML_BLOCK;
static const cmark_node_type BC_CMARK_NODE_PARAGRAPH = CMARK_NODE_PARAGRAPH;
static const cmark_node_type BC_CMARK_NODE_FOOTNOTE_DEFINITION = CMARK_NODE_FOOTNOTE_DEFINITION;
static const cmark_node_type BC_CMARK_NODE_SOFTBREAK = CMARK_NODE_SOFTBREAK;
static const cmark_node_type BC_CMARK_NODE_LINEBREAK = CMARK_NODE_LINEBREAK;
static const cmark_node_type BC_CMARK_NODE_HTML_INLINE = CMARK_NODE_HTML_INLINE;
static const cmark_node_type BC_CMARK_NODE_FOOTNOTE_REFERENCE = CMARK_NODE_FOOTNOTE_REFERENCE;

static const cmark_node_type BC_CMARK_NODE_BLOCK_QUOTE = CMARK_NODE_BLOCK_QUOTE;
static const cmark_node_type BC_CMARK_NODE_ITEM = CMARK_NODE_ITEM;
static const cmark_node_type BC_CMARK_NODE_CODE_BLOCK = CMARK_NODE_CODE_BLOCK;
static const cmark_node_type BC_CMARK_NODE_HEADING = CMARK_NODE_HEADING;
static const cmark_node_type BC_CMARK_NODE_THEMATIC_BREAK = CMARK_NODE_THEMATIC_BREAK;
static const cmark_node_type BC_CMARK_NODE_CODE = CMARK_NODE_CODE;
static const cmark_node_type BC_CMARK_NODE_EMPH = CMARK_NODE_EMPH;
static const cmark_node_type BC_CMARK_NODE_STRONG = CMARK_NODE_STRONG;
static const cmark_node_type BC_CMARK_NODE_LINK = CMARK_NODE_LINK;
static const cmark_node_type BC_CMARK_NODE_IMAGE = CMARK_NODE_IMAGE;
static const cmark_node_type BC_CMARK_NODE_TEXT = CMARK_NODE_TEXT;
static const cmark_event_type BC_CMARK_EVENT_ENTER = CMARK_EVENT_ENTER;
static const cmark_event_type BC_CMARK_EVENT_EXIT = CMARK_EVENT_EXIT;
static const cmark_event_type BC_CMARK_EVENT_DONE = CMARK_EVENT_DONE;

#endif
