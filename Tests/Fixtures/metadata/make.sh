#!/usr/bin/env bash
# Makes the metadata fixtures with exiftool (12.57), ImageMagick, cwebp and python3, then
# records what `exiftool -j` reads (from these and from the hand-written sidecars
# lightroom.xmp, darktable.xmp and digikam.xmp, laid out as those programs write them) from each in exiftool.json (the tests compare with it and
# never run exiftool). Run from this folder: ./make.sh
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.jpg ./*.png ./*.webp ./*.tif ./*.heic ./*_original
X="exiftool -q -q -overwrite_original"
/usr/bin/convert -size 16x16 xc:'#6688aa' -quality 80 base.jpg

# Every XMP field, written as exiftool writes them (elements, rdf:Bag/Alt/Seq).
cp base.jpg xmp-all.jpg
$X -XMP-dc:Title="Sunset at the pier" -XMP-dc:Description="Waves & <rocks>, \"évening\" light" \
   -XMP-dc:Subject=beach -XMP-dc:Subject=sunset -XMP-dc:Subject="Zoë" \
   -XMP-lr:HierarchicalSubject="Places|France|Nice" -XMP-lr:HierarchicalSubject="Events|Holiday" \
   -XMP-xmp:Rating=4 -XMP-xmp:Label=Red -XMP-dc:Creator="Ann Example" -XMP-dc:Creator="Bo Example" \
   -XMP-dc:Rights="© 2024 Ann Example" -XMP-photoshop:City=Nice -XMP-photoshop:State="Provence-Alpes-Côte d'Azur" \
   -XMP-photoshop:Country=France -XMP-iptcCore:Location="Promenade des Anglais" \
   -XMP-iptcExt:PersonInImage="Carl Example" xmp-all.jpg

# IPTC-IIM in UTF-8 (1:90 ESC % G) and in Latin-1 (no 1:90).
cp base.jpg iptc-utf8.jpg
$X -charset iptc=UTF8 -IPTC:CodedCharacterSet=UTF8 -IPTC:ObjectName="Marché" -IPTC:Caption-Abstract="Le marché de Noël, Straßburg" \
   -IPTC:Keywords=market -IPTC:Keywords="Noël" -IPTC:By-line="Jürgen" -IPTC:CopyrightNotice="© Jürgen" \
   -IPTC:City=Strasbourg -IPTC:Sub-location="Place Kléber" -IPTC:Province-State="Grand Est" \
   -IPTC:Country-PrimaryLocationName=France iptc-utf8.jpg
cp base.jpg iptc-latin1.jpg
$X -charset iptc=Latin -IPTC:Caption-Abstract="Café au lait" -IPTC:Keywords="café" -IPTC:Keywords="crème" \
   -IPTC:By-line="Renée" iptc-latin1.jpg

# EXIF text tags: UserComment as UNICODE, the Windows XP tags.
cp base.jpg exif-text.jpg
$X -EXIF:ImageDescription="Harbour at dawn" -EXIF:Artist="Dee Example" -EXIF:Copyright="Dee Example 2023" \
   -EXIF:XPTitle="Harbour" -EXIF:XPKeywords="boats;harbour" exif-text.jpg
cp base.jpg exif-usercomment.jpg
$X -EXIF:UserComment="Über den Wolken" exif-usercomment.jpg
cp base.jpg exif-placeholder.jpg
$X -EXIF:ImageDescription="OLYMPUS DIGITAL CAMERA         " -EXIF:Make=OLYMPUS exif-placeholder.jpg

# One caption in all three: XMP wins; IPTC's keywords fill in what XMP lacks.
cp base.jpg precedence.jpg
$X -EXIF:ImageDescription="from EXIF" -EXIF:Artist="EXIF artist" -IPTC:Caption-Abstract="from IPTC" \
   -IPTC:Keywords=iptc-only -XMP-dc:Description="from XMP" precedence.jpg

# Face regions: MWG-RS (a face and a pet) and Microsoft Photo.
cp base.jpg regions.jpg
$X '-XMP-mwg-rs:RegionInfo={AppliedToDimensions={W=16,H=16,Unit=pixel},RegionList=[{Area={X=0.5,Y=0.5,W=0.2,H=0.2,Unit=normalized},Name=Alice Example,Type=Face},{Area={X=0.2,Y=0.2,W=0.1,H=0.1,Unit=normalized},Name=Rex,Type=Pet},{Name=Bob Example}]}' \
   '-XMP-MP:RegionInfoMP={Regions=[{PersonDisplayName=Dana Example,Rectangle=0.1 0.1 0.2 0.2}]}' regions.jpg

# Extended XMP: 800 keywords of 100 bytes do not fit one APP1 segment.
cp base.jpg extended.jpg
python3 -c "
for i in range(800): print('-XMP-dc:Subject=kw%03d-' % i + 'x' * 94)
" > keywords.args
$X -@ keywords.args -XMP-dc:Title="Extended" extended.jpg
rm keywords.args

# PNG (iTXt, plain and compressed), WebP (XMP chunk), TIFF (tags 700 and 33723), HEIF (mime item).
/usr/bin/convert -size 16x16 xc:'#6688aa' base.png
cp base.png xmp.png
$X -XMP-dc:Title="PNG title" -XMP-dc:Subject=png -XMP-xmp:Rating=2 xmp.png
cp base.png xmp-z.png
$X -z -XMP-dc:Title="Compressed PNG title" -XMP-dc:Subject=zipped xmp-z.png
cwebp -quiet base.png -o base.webp
cp base.webp xmp.webp
$X -XMP-dc:Title="WebP title" -XMP-dc:Subject=webp xmp.webp
/usr/bin/convert -size 16x16 xc:'#6688aa' -compress none tiff.tif
$X -XMP-dc:Title="TIFF title" -IPTC:Caption-Abstract="TIFF IPTC caption" -IPTC:Keywords=tiff tiff.tif
cp ../heic/heif_L_8__29x100.heif xmp.heic
$X -XMP-dc:Title="HEIF title" -XMP-dc:Subject=heif xmp.heic || rm -f xmp.heic
rm -f base.jpg base.png base.webp

exiftool -j -G1 -struct -charset iptc=Latin \
  -XMP-dc:all -XMP-lr:all -XMP-xmp:Rating -XMP-xmp:Label -XMP-photoshop:all -XMP-iptcCore:Location \
  -XMP-iptcExt:all -XMP-mwg-rs:RegionInfo -XMP-MP:RegionInfoMP -IPTC:all -IFD0:ImageDescription -IFD0:Artist \
  -IFD0:Copyright -ExifIFD:UserComment -IFD0:XPTitle -IFD0:XPKeywords -IFD0:XPComment \
  ./*.jpg ./*.png ./*.webp ./*.tif $(ls ./*.heic 2>/dev/null) lightroom.xmp darktable.xmp digikam.xmp > exiftool.json
# The hostile-*.xmp files are hand-written too (a billion laughs, an external entity, an
# undeclared entity); the tests build the deep and huge ones in memory.
