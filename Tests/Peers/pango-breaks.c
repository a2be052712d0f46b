/* Lays out Pango markup at a width, as a GTK label wrapping by characters
 * does, and says how many lines it took and how many of their ends Pango
 * drew with a hyphen the text does not have (the glyph of '-' or U+2010 at a
 * line's end whose text does not end in one).
 *
 *     pango-breaks MARKUP WIDTH_PIXELS   ->  "lines N inserted-hyphens M"
 */
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PangoGlyph glyph_for(PangoFont *font, gunichar c) {
    hb_font_t *hb = pango_font_get_hb_font(font);
    hb_codepoint_t glyph = 0;
    return hb && hb_font_get_nominal_glyph(hb, c, &glyph) ? glyph : PANGO_GLYPH_EMPTY;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: pango-breaks MARKUP WIDTH_PIXELS\n");
        return 2;
    }
    PangoFontMap *map = pango_cairo_font_map_get_default();
    PangoContext *context = pango_font_map_create_context(map);
    PangoLayout *layout = pango_layout_new(context);
    pango_layout_set_markup(layout, argv[1], -1);
    pango_layout_set_width(layout, atoi(argv[2]) * PANGO_SCALE);
    pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    const char *text = pango_layout_get_text(layout);
    int lines = pango_layout_get_line_count(layout), inserted = 0;
    for (int i = 0; i < lines; i++) {
        PangoLayoutLine *line = pango_layout_get_line_readonly(layout, i);
        GSList *last = g_slist_last(line->runs);
        if (!last || line->length == 0) continue;
        PangoGlyphItem *run = last->data;
        PangoGlyphString *glyphs = run->glyphs;
        if (glyphs->num_glyphs == 0) continue;
        PangoGlyph end = glyphs->glyphs[glyphs->num_glyphs - 1].glyph;
        PangoFont *font = run->item->analysis.font;
        const char *line_end = g_utf8_prev_char(text + line->start_index + line->length);
        gunichar written = g_utf8_get_char(line_end);
        int drawn_hyphen = end == glyph_for(font, '-') || end == glyph_for(font, 0x2010);
        if (drawn_hyphen && written != '-' && written != 0x2010) inserted++;
    }
    printf("lines %d inserted-hyphens %d\n", lines, inserted);
    return 0;
}
