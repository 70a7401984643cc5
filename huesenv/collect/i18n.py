"""The interface in English and Spanish (the paper's cohort): a small message catalogue, no build step.

The English text is the message id (gettext style), so a missing translation
shows English rather than a key, and ``tests/test_collect_participant_ready.py``
checks that every message the templates use has a Spanish entry.  Messages use
``%(name)s`` placeholders, filled only when arguments are given.

The interface language is a display preference, separate from the
participant's ``language`` answer (which goes into the data): it comes from a
``?lang=`` link in the page header, else the browser's ``Accept-Language``,
else English.  Stored values (colour names, answers, categories) stay English;
only their labels are translated.
"""

from __future__ import annotations

from collections.abc import Mapping

UI_LANGUAGES: tuple[tuple[str, str], ...] = (("en", "English"), ("es", "Español"))
DEFAULT_UI = "en"

SPANISH: dict[str, str] = {
    # frame
    "Hues and Cues study": "Estudio Hues and Cues",
    "Hues & Cues study": "Estudio Hues & Cues",
    "Interface language": "Idioma de la interfaz",
    "Continue": "Continuar",
    "Next": "Siguiente",
    "Submit": "Enviar",
    "Begin": "Empezar",
    "Finish": "Terminar",
    "Please turn your phone sideways (landscape): the board needs the width.": "Gire el móvil en horizontal: el tablero necesita todo el ancho.",
    # onboarding
    "Welcome": "Bienvenida",
    "1. Consent": "1. Consentimiento",
    "I have read the information above and agree to take part.": "He leído la información anterior y acepto participar.",
    "I am %(age)s years old or older.": "Tengo %(age)s años o más.",
    "I am under %(age)s, and my parent or legal guardian has read the information and agrees that I take part.": "Tengo menos de %(age)s años, y mi madre, padre o tutor legal ha leído la información y acepta que participe.",
    "2. Language": "2. Idioma",
    "English": "Inglés",
    "Spanish": "Español",
    "3. About you": "3. Sobre usted",
    "Gender": "Género",
    "Age": "Edad",
    "— choose —": "— elija —",
    "Female": "Mujer",
    "Male": "Hombre",
    "Other": "Otro",
    "Prefer not to say": "Prefiero no decirlo",
    "under 10": "menos de 10",
    "70 or older": "70 o más",
    "4. Colour vision": "4. Visión del color",
    "Have you been told that you have a colour-vision deficiency (colour blindness)?": "¿Le han dicho alguna vez que tiene una alteración de la visión del color (daltonismo)?",
    "No": "No",
    "Yes": "Sí",
    "5. Your screen": "5. Su pantalla",
    "Colours must look the same for everyone, so before you start:": "Los colores deben verse igual para todos, así que antes de empezar:",
    "turn the screen brightness all the way up;": "suba el brillo de la pantalla al máximo;",
    "turn off night mode, Night Shift, Night Light, blue-light or reading filters, dark mode and any colour filters or inversion;": "desactive el modo nocturno (Night Shift, Luz nocturna), los filtros de luz azul o de lectura, el modo oscuro y cualquier filtro o inversión de colores;",
    "use a computer, tablet or a phone held sideways, in a normally lit room, without sunglasses or tinted lenses.": "use un ordenador, una tableta o un móvil en horizontal, en una habitación con luz normal, sin gafas de sol ni lentes tintadas.",
    "My screen is set up as described.": "Mi pantalla está configurada como se indica.",
    "Please answer every question.": "Por favor, responda a todas las preguntas.",
    "field %(field)s: please choose one of the options": "campo %(field)s: elija una de las opciones",
    "Please confirm that you agree to take part.": "Por favor, confirme que acepta participar.",
    "Please confirm that your screen is set up as described.": "Por favor, confirme que su pantalla está configurada como se indica.",
    "This study is open only to people aged %(age)s or older. Thank you for your interest.": "Este estudio solo está abierto a personas de %(age)s años o más. Gracias por su interés.",
    "Participants under %(age)s need the consent of a parent or legal guardian: please ask them to read the information and tick the box.": "Los participantes menores de %(age)s años necesitan el consentimiento de su madre, padre o tutor legal: pídale que lea la información y marque la casilla.",
    "Your age answer says you are under %(age)s: please check it.": "Su respuesta de edad indica que tiene menos de %(age)s años: por favor, revísela.",
    "Already taken part": "Ya ha participado",
    "This study-platform ID has already taken part in this study.": "Este identificador de la plataforma ya ha participado en este estudio.",
    "Too many attempts": "Demasiados intentos",
    "Too many sign-ups from your connection. Please try again in %(n)s minutes.": "Demasiados registros desde su conexión. Vuelva a intentarlo dentro de %(n)s minutos.",
    # default information text
    "This study asks which colours you associate with things. It takes a few minutes.": "Este estudio pregunta qué colores asocia con distintas cosas. Dura unos minutos.",
    "We store your answers with the details below and a random identifier; we do not ask for your name or contact details. Taking part is voluntary: you can stop at any time by closing the page.": "Guardamos sus respuestas con los datos de abajo y un identificador aleatorio; no pedimos su nombre ni sus datos de contacto. La participación es voluntaria: puede dejarlo en cualquier momento cerrando la página.",
    "(The researchers running this study replace this text with their approved information sheet.)": "(Los investigadores que realizan este estudio sustituyen este texto por su hoja de información aprobada.)",
    # instructions
    "Instructions": "Instrucciones",
    "You will see %(n)s words, one at a time. For each word, choose the colour on the board that you associate with it: click a cell, or type its coordinate (a row letter A–P and a column 1–30, e.g. I18), then press Submit.": "Verá %(n)s palabras, una cada vez. Para cada palabra, elija el color del tablero que asocia con ella: pulse una casilla o escriba su coordenada (una letra de fila A–P y una columna 1–30, p. ej. I18) y pulse Enviar.",
    "Go with your first impression: there are no right or wrong answers. Once submitted, an answer cannot be changed.": "Déjese llevar por su primera impresión: no hay respuestas correctas ni incorrectas. Una vez enviada, una respuesta no se puede cambiar.",
    "After each answer you will see where earlier participants placed the same word.": "Después de cada respuesta verá dónde colocaron la misma palabra otros participantes.",
    "You will see drawings in which part of the object has been coloured. For each one, answer “What color is the object?” with one of three buttons, then say how sure you are from 1 (very uncertain) to 10 (very certain).": "Verá dibujos en los que parte del objeto está coloreada. Para cada uno, responda «¿De qué color es el objeto?» con uno de tres botones y diga lo seguro que está, de 1 (muy inseguro) a 10 (muy seguro).",
    "Some items check that you are paying attention: follow what they ask. One question asks for a rule in percent. Answers cannot be changed once submitted.": "Algunas preguntas comprueban que presta atención: haga lo que piden. Una pregunta pide una regla en porcentaje. Las respuestas no se pueden cambiar una vez enviadas.",
    "Paint the whole board into eight colour regions:": "Pinte todo el tablero en ocho regiones de color:",
    "Choose a colour from the palette, then click or drag over the cells that belong to it. The fill tool paints a whole connected area of the same colour at once; the eraser clears cells; undo takes back the last stroke. Every cell must be painted before you can submit.": "Elija un color de la paleta y pulse o arrastre sobre las casillas que le corresponden. La herramienta de relleno pinta de una vez toda una zona conectada del mismo color; la goma borra casillas; deshacer anula el último trazo. Debe pintar todas las casillas antes de enviar.",
    "Reminder: screen brightness all the way up, night mode and colour filters off.": "Recuerde: brillo de la pantalla al máximo, modo nocturno y filtros de color desactivados.",
    # words
    "Word %(n)s of %(total)s": "Palabra %(n)s de %(total)s",
    "Word %(done)s of %(total)s answered": "Palabra %(done)s de %(total)s respondida",
    "Current cue": "Pista actual",
    "Coordinate": "Coordenada",
    "e.g. I18": "p. ej. I18",
    "A row letter A-P and a column 1-30, e.g. I18": "Una letra de fila A-P y una columna 1-30, p. ej. I18",
    "You placed": "Ha colocado",
    "at": "en",
    "Next word": "Siguiente palabra",
    "Other answers": "Otras respuestas",
    "Black dots show where %(n)s earlier participant placed this word (bigger dots: more people); your choice is outlined.": "Los puntos negros muestran dónde colocó esta palabra %(n)s participante anterior (puntos más grandes: más personas); su elección está remarcada.",
    "Black dots show where %(n)s earlier participants placed this word (bigger dots: more people); your choice is outlined.": "Los puntos negros muestran dónde colocaron esta palabra %(n)s participantes anteriores (puntos más grandes: más personas); su elección está remarcada.",
    "You are the first participant to place this word.": "Es el primer participante en colocar esta palabra.",
    "Please enter a row letter A-P and a column 1-30, e.g. I18.": "Escriba una letra de fila A-P y una columna 1-30, p. ej. I18.",
    "Answer not accepted": "Respuesta no aceptada",
    "That word has already been answered; answers cannot be changed.": "Esa palabra ya está respondida; las respuestas no se pueden cambiar.",
    "That item has already been answered; answers cannot be changed.": "Esa pregunta ya está respondida; las respuestas no se pueden cambiar.",
    # GCA
    "Question %(n)s": "Pregunta %(n)s",
    "Item %(n)s of %(total)s": "Pregunta %(n)s de %(total)s",
    "For any object, x% of its pixels should be colored for it to be considered that color. At what point would you personally say that an object in an image is the given color? What value should x% be?": "Para cualquier objeto, un x% de sus píxeles debe estar coloreado para considerar que es de ese color. ¿A partir de qué punto diría usted que un objeto de una imagen es del color indicado? ¿Qué valor debería tener x%?",
    "Move the slider or type a number from 0 to 100. There is no preset value.": "Mueva el control o escriba un número de 0 a 100. No hay ningún valor predeterminado.",
    "stimulus image": "imagen del estímulo",
    "Attention check: please click the button labelled “%(label)s”.": "Comprobación de atención: pulse el botón «%(label)s».",
    "What color is the %(object)s in the image?": "¿De qué color es el objeto de la imagen (%(object)s)?",
    "How sure are you?": "¿Qué seguridad tiene?",
    "1 = very uncertain, 10 = very certain": "1 = muy inseguro, 10 = muy seguro",
    "Please choose one of the colours and how sure you are.": "Elija uno de los colores y lo seguro que está.",
    "Please give a whole number from 0 to 100.": "Escriba un número entero de 0 a 100.",
    # tessellation
    "Colour regions": "Regiones de color",
    "Divide the board into colour regions": "Divida el tablero en regiones de color",
    "Eraser": "Goma",
    "Tool": "Herramienta",
    "Brush": "Pincel",
    "Fill": "Relleno",
    "Undo": "Deshacer",
    "show regions only": "mostrar solo las regiones",
    "Cells left to paint: %(n)s": "Casillas por pintar: %(n)s",
    "all cells painted": "todas las casillas pintadas",
    "Please paint every cell (%(n)s left).": "Pinte todas las casillas (quedan %(n)s).",
    "Submit regions": "Enviar regiones",
    "Not accepted": "No aceptado",
    "Your tessellation was already submitted.": "Su teselado ya se envió.",
    "Consensus map": "Mapa de consenso",
    "Consensus of %(n)s participant": "Consenso de %(n)s participante",
    "Consensus of %(n)s participants": "Consenso de %(n)s participantes",
    "No tessellation has been submitted yet.": "Todavía no se ha enviado ningún teselado.",
    "Each cell shows the most chosen region; darker cells have lower agreement.": "Cada casilla muestra la región más elegida; las casillas más oscuras tienen menos acuerdo.",
    # done
    "Thank you!": "¡Gracias!",
    "Your answers have been saved.": "Sus respuestas se han guardado.",
    "You can close this page.": "Puede cerrar esta página.",
    "Your completion code:": "Su código de finalización:",
    "Return to the study platform to confirm your participation": "Vuelva a la plataforma del estudio para confirmar su participación",
    "See the current consensus map": "Ver el mapa de consenso actual",
    # errors
    "Form expired": "Formulario caducado",
    "This form is no longer valid (it may have been open in an old tab). Please continue from the current page.": "Este formulario ya no es válido (quizá estaba abierto en una pestaña antigua). Continúe desde la página actual.",
    "Too much data": "Demasiados datos",
    "The form was too large.": "El formulario era demasiado grande.",
    "Not found": "No encontrado",
    "There is no such page.": "Esa página no existe.",
    "Bad request": "Solicitud incorrecta",
    "The request could not be understood.": "No se ha podido entender la solicitud.",
    "Method not allowed": "Método no permitido",
    "This page cannot be used that way.": "Esta página no se puede usar de esa forma.",
    # colours (tessellation regions and GCA options)
    "Brown": "Marrón",
    "Red": "Rojo",
    "Orange": "Naranja",
    "Yellow": "Amarillo",
    "Green": "Verde",
    "Blue": "Azul",
    "Purple": "Morado",
    "Pink": "Rosa",
    "white": "blanco",
    "blue": "azul",
    "brown": "marrón",
    "green": "verde",
    "grey": "gris",
    "orange": "naranja",
    "pink": "rosa",
    "purple": "morado",
    "red": "rojo",
    "yellow": "amarillo",
    "black": "negro",
    # GCA objects
    "apple": "manzana",
    "avocado": "aguacate",
    "basketball": "balón de baloncesto",
    "bell": "campana",
    "brain": "cerebro",
    "bread": "pan",
    "cactus": "cactus",
    "carrot": "zanahoria",
    "cheese": "queso",
    "cherry": "cereza",
    "chili pepper": "guindilla",
    "christmas tree": "árbol de Navidad",
    "circle": "círculo",
    "clover": "trébol",
    "coin": "moneda",
    "cookie": "galleta",
    "crown": "corona",
    "fire extinguisher": "extintor",
    "fire hydrant": "boca de incendios",
    "fire truck": "camión de bomberos",
    "flame": "llama",
    "fried egg": "huevo frito",
    "goldfish": "pez de colores",
    "heart": "corazón",
    "hexagon": "hexágono",
    "horse": "caballo",
    "ice cream": "helado",
    "leaf": "hoja",
    "lemon": "limón",
    "light bulb": "bombilla",
    "lollipop": "piruleta",
    "lungs": "pulmones",
    "mailbox": "buzón",
    "moon": "luna",
    "mouse": "ratón",
    "mushroom": "seta",
    "pentagon": "pentágono",
    "pig": "cerdo",
    "piggy bank": "hucha de cerdito",
    "potted plant": "planta en maceta",
    "pumpkin": "calabaza",
    "sausage": "salchicha",
    "school bus": "autobús escolar",
    "seedling": "plántula",
    "sprout": "brote",
    "square": "cuadrado",
    "star": "estrella",
    "submarine": "submarino",
    "tennis ball": "pelota de tenis",
    "tractor": "tractor",
    "tree": "árbol",
    "triangle": "triángulo",
    "water drop": "gota de agua",
    "watermelon": "sandía",
}

CATALOGUES: dict[str, Mapping[str, str]] = {"en": {}, "es": SPANISH}


def translate(ui: str, message: str, **kwargs: object) -> str:
    """``message`` in interface language ``ui`` (English when there is no entry), with placeholders filled."""
    text = CATALOGUES.get(ui, {}).get(message, message)
    return text % kwargs if kwargs else text


def ntranslate(ui: str, singular: str, plural: str, n: int, **kwargs: object) -> str:
    """Singular or plural form (both catalogues have two forms), ``%(n)s`` filled with ``n``."""
    return translate(ui, singular if n == 1 else plural, n=n, **kwargs)


def pick_language(requested: str | None, accept_languages) -> str:
    """The interface language: a supported ``?lang=`` value, else the best ``Accept-Language`` match, else English."""
    codes = [code for code, _ in UI_LANGUAGES]
    if requested in codes:
        return str(requested)
    best = accept_languages.best_match(codes) if accept_languages is not None else None
    return best or DEFAULT_UI
